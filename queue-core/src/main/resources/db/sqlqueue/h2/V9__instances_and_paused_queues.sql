-- Operating a cluster (docs/operations.md). queue_paused: one row per paused queue; every
-- instance reads the set once per poll interval and claims nothing of a queue in it.
-- queue_instance: one row per running instance, written by its instance beat on the
-- database clock, deleted when it stops cleanly; a row not beaten for three beats is shown
-- as gone, and deleted after the retention (sqlqueue.maintenance.instance-retention).
-- queues: the names it serves, comma-separated (queue names hold no comma).
CREATE TABLE queue_paused (
    queue     VARCHAR(64)  PRIMARY KEY,
    paused_at TIMESTAMP WITH TIME ZONE NOT NULL,
    paused_by VARCHAR(255)
);

CREATE TABLE queue_instance (
    id           VARCHAR(128) PRIMARY KEY,
    host         VARCHAR(255) NOT NULL,
    pid          BIGINT       NOT NULL,
    version      VARCHAR(64)  NOT NULL,
    queues       CHARACTER LARGE OBJECT NOT NULL,
    concurrency  INTEGER      NOT NULL,
    busy_workers INTEGER      NOT NULL,
    beat_millis  BIGINT       NOT NULL,
    started_at   TIMESTAMP WITH TIME ZONE NOT NULL,
    last_seen    TIMESTAMP WITH TIME ZONE NOT NULL
);
