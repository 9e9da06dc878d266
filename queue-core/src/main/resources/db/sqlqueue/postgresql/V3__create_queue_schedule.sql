-- Recurring jobs: one row per schedule, with its next due time on the database's clock.
-- Firing locks the due rows (FOR UPDATE SKIP LOCKED), enqueues each tick's job and moves
-- next_run_at in one transaction, so any number of instances fire each tick once.
CREATE TABLE queue_schedule (
    name          varchar(128) PRIMARY KEY,
    handler       varchar(128) NOT NULL,
    queue         varchar(64),
    payload       jsonb        NOT NULL,
    cron          varchar(128),
    zone          varchar(64),
    every_millis  bigint,
    misfire       varchar(16)  NOT NULL,
    overlap       varchar(16)  NOT NULL,
    source        varchar(16)  NOT NULL,
    paused        boolean      NOT NULL DEFAULT false,
    orphaned      boolean      NOT NULL DEFAULT false,
    next_run_at   timestamptz  NOT NULL,
    last_tick_at  timestamptz,
    last_fired_at timestamptz,
    last_job_id   bigint,
    version       bigint       NOT NULL DEFAULT 0,
    created_at    timestamptz  NOT NULL DEFAULT now(),
    updated_at    timestamptz  NOT NULL DEFAULT now(),
    CHECK ((cron IS NULL) <> (every_millis IS NULL))
);

CREATE INDEX queue_schedule_due_idx ON queue_schedule (next_run_at);

-- The tick a recurring job was fired for (JobContext.scheduledFor()); null for other jobs.
ALTER TABLE queue_job ADD COLUMN scheduled_for timestamptz;
