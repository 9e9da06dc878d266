-- Operating a cluster (docs/operations.md). queue_paused: one row per paused queue; every
-- instance reads the set once per poll interval and claims nothing of a queue in it.
-- queue_instance: one row per running instance, written by its instance beat on the
-- database clock, deleted when it stops cleanly; a row not beaten for three beats is shown
-- as gone, and deleted after the retention (sqlqueue.maintenance.instance-retention).
-- queues: the names it serves, comma-separated (queue names hold no comma).
CREATE TABLE queue_paused (
    queue     varchar(64)  PRIMARY KEY,
    paused_at timestamptz  NOT NULL,
    paused_by varchar(255)
);

CREATE TABLE queue_instance (
    id           varchar(128) PRIMARY KEY,
    host         varchar(255) NOT NULL,
    pid          bigint       NOT NULL,
    version      varchar(64)  NOT NULL,
    queues       text         NOT NULL,
    concurrency  integer      NOT NULL,
    busy_workers integer      NOT NULL,
    beat_millis  bigint       NOT NULL,
    started_at   timestamptz  NOT NULL,
    last_seen    timestamptz  NOT NULL
);
