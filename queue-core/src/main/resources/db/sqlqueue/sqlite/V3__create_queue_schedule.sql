-- Recurring jobs: one row per schedule, with its next due time on the database's clock.
-- Firing takes the due rows by compare-and-set on version, enqueues each tick's job and moves
-- next_run_at in one transaction, so any number of instances fire each tick once.
CREATE TABLE queue_schedule (
    name          varchar(128) PRIMARY KEY,
    handler       varchar(128) NOT NULL,
    queue         varchar(64),
    payload       TEXT         NOT NULL,
    cron          varchar(128),
    zone          varchar(64),
    every_millis  INTEGER,
    misfire       varchar(16)  NOT NULL,
    overlap       varchar(16)  NOT NULL,
    source        varchar(16)  NOT NULL,
    paused        INTEGER      NOT NULL DEFAULT 0,
    orphaned      INTEGER      NOT NULL DEFAULT 0,
    next_run_at   TEXT  NOT NULL,
    last_tick_at  TEXT,
    last_fired_at TEXT,
    last_job_id   INTEGER,
    version       INTEGER       NOT NULL DEFAULT 0,
    created_at    TEXT  NOT NULL,
    updated_at    TEXT  NOT NULL,
    CHECK ((cron IS NULL) <> (every_millis IS NULL))
);

CREATE INDEX queue_schedule_due_idx ON queue_schedule (next_run_at);

-- The tick a recurring job was fired for (JobContext.scheduledFor()); null for other jobs.
ALTER TABLE queue_job ADD COLUMN scheduled_for TEXT;
