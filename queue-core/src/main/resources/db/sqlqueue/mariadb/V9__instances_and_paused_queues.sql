-- Operating a cluster (docs/operations.md). queue_paused: one row per paused queue; every
-- instance reads the set once per poll interval and claims nothing of a queue in it.
-- queue_instance: one row per running instance, written by its instance beat on the
-- database clock, deleted when it stops cleanly; a row not beaten for three beats is shown
-- as gone, and deleted after the retention (sqlqueue.maintenance.instance-retention).
-- queues: the names it serves, comma-separated (queue names hold no comma).
-- Times are UTC DATETIME(6) written by the queue (UTC_TIMESTAMP(6)), names utf8mb4_bin, as queue_job.
CREATE TABLE queue_paused (
    queue     VARCHAR(64)  PRIMARY KEY,
    paused_at DATETIME(6)  NOT NULL,
    paused_by VARCHAR(255)
) ENGINE = InnoDB DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;

CREATE TABLE queue_instance (
    id           VARCHAR(128) PRIMARY KEY,
    host         VARCHAR(255) NOT NULL,
    pid          BIGINT       NOT NULL,
    version      VARCHAR(64)  NOT NULL,
    queues       TEXT         NOT NULL,
    concurrency  INT          NOT NULL,
    busy_workers INT          NOT NULL,
    beat_millis  BIGINT       NOT NULL,
    started_at   DATETIME(6)  NOT NULL,
    last_seen    DATETIME(6)  NOT NULL
) ENGINE = InnoDB DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
