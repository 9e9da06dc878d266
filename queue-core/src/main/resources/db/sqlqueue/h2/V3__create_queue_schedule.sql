-- Recurring jobs: one row per schedule, with its next due time on the database's clock
-- (see the PostgreSQL migration).
CREATE TABLE queue_schedule (
    name          VARCHAR(128) PRIMARY KEY,
    handler       VARCHAR(128) NOT NULL,
    queue         VARCHAR(64),
    payload       CHARACTER LARGE OBJECT NOT NULL,
    cron          VARCHAR(128),
    zone          VARCHAR(64),
    every_millis  BIGINT,
    misfire       VARCHAR(16)  NOT NULL,
    overlap       VARCHAR(16)  NOT NULL,
    source        VARCHAR(16)  NOT NULL,
    paused        BOOLEAN      DEFAULT FALSE NOT NULL,
    orphaned      BOOLEAN      DEFAULT FALSE NOT NULL,
    next_run_at   TIMESTAMP WITH TIME ZONE NOT NULL,
    last_tick_at  TIMESTAMP WITH TIME ZONE,
    last_fired_at TIMESTAMP WITH TIME ZONE,
    last_job_id   BIGINT,
    version       BIGINT       DEFAULT 0 NOT NULL,
    created_at    TIMESTAMP WITH TIME ZONE DEFAULT CURRENT_TIMESTAMP NOT NULL,
    updated_at    TIMESTAMP WITH TIME ZONE DEFAULT CURRENT_TIMESTAMP NOT NULL,
    CHECK ((cron IS NULL) <> (every_millis IS NULL))
);

CREATE INDEX queue_schedule_due_idx ON queue_schedule (next_run_at);

-- The tick a recurring job was fired for (JobContext.scheduledFor()); null for other jobs.
ALTER TABLE queue_job ADD COLUMN scheduled_for TIMESTAMP WITH TIME ZONE;
