-- Recurring jobs: one row per schedule, with its next due time on the database's clock
-- (UTC DATETIME(6), as queue_job). Firing locks the due rows (FOR UPDATE SKIP LOCKED),
-- enqueues each tick's job and moves next_run_at in one transaction.
CREATE TABLE queue_schedule (
    name          VARCHAR(128) NOT NULL PRIMARY KEY,
    handler       VARCHAR(128) NOT NULL,
    queue         VARCHAR(64),
    payload       LONGTEXT     NOT NULL CHECK (JSON_VALID(payload)),
    cron          VARCHAR(128),
    zone          VARCHAR(64),
    every_millis  BIGINT,
    misfire       VARCHAR(16)  NOT NULL,
    overlap       VARCHAR(16)  NOT NULL,
    source        VARCHAR(16)  NOT NULL,
    paused        BOOLEAN      NOT NULL DEFAULT FALSE,
    orphaned      BOOLEAN      NOT NULL DEFAULT FALSE,
    next_run_at   DATETIME(6)  NOT NULL,
    last_tick_at  DATETIME(6),
    last_fired_at DATETIME(6),
    last_job_id   BIGINT,
    version       BIGINT       NOT NULL DEFAULT 0,
    created_at    DATETIME(6)  NOT NULL,
    updated_at    DATETIME(6)  NOT NULL,
    CHECK ((cron IS NULL) <> (every_millis IS NULL))
) ENGINE = InnoDB DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;

CREATE INDEX queue_schedule_due_idx ON queue_schedule (next_run_at);

-- The tick a recurring job was fired for (JobContext.scheduledFor()); null for other jobs.
ALTER TABLE queue_job ADD COLUMN scheduled_for DATETIME(6);
