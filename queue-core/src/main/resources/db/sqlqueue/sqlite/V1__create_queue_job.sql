-- sqlqueue's table on SQLite 3.35+. Times are text in UTC, 'YYYY-MM-DD HH:MM:SS.SSS' (what
-- strftime('%Y-%m-%d %H:%M:%f', 'now') returns), so text order is time order; the queue
-- always writes them itself. WAL mode is not set here: SQLite refuses to change the journal
-- mode inside a transaction, which is where Flyway runs this. The queue sets it at start-up
-- (SqliteDialect.checkDatabase); the file keeps it.
CREATE TABLE queue_job (
    -- AUTOINCREMENT: an id is never reused, even after the newest job is deleted.
    id               INTEGER      PRIMARY KEY AUTOINCREMENT,
    queue            VARCHAR(64)  NOT NULL,
    handler          VARCHAR(128) NOT NULL,
    payload          TEXT         NOT NULL,
    status           VARCHAR(16)  NOT NULL DEFAULT 'QUEUED'
                     CHECK (status IN ('QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED')),
    priority         INTEGER      NOT NULL DEFAULT 0,
    run_at           TEXT         NOT NULL,
    attempts         INTEGER      NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    max_attempts     INTEGER      NOT NULL CHECK (max_attempts >= 1),
    lease_owner      VARCHAR(128),
    lease_token      INTEGER,
    lease_expires_at TEXT,
    version          INTEGER      NOT NULL DEFAULT 0,
    unique_key       VARCHAR(255),
    group_key        VARCHAR(255),
    last_error       TEXT,
    result           TEXT,
    created_at       TEXT         NOT NULL,
    updated_at       TEXT         NOT NULL,
    started_at       TEXT,
    finished_at      TEXT,
    CHECK (status <> 'RUNNING' OR (lease_token IS NOT NULL AND lease_expires_at IS NOT NULL))
);

-- The claim's hot path: ready work, in the order it runs.
CREATE INDEX queue_job_ready_idx ON queue_job (queue, priority DESC, run_at, id) WHERE status = 'QUEUED';

-- The reaper: running jobs by lease expiry.
CREATE INDEX queue_job_lease_idx ON queue_job (lease_expires_at) WHERE status = 'RUNNING';

-- At most one unfinished job per unique key.
CREATE UNIQUE INDEX queue_job_unique_key_idx ON queue_job (unique_key)
    WHERE unique_key IS NOT NULL AND status IN ('QUEUED', 'RUNNING');

-- FIFO per group: is another job of this group running, or an older one waiting?
CREATE INDEX queue_job_group_idx ON queue_job (group_key, id)
    WHERE group_key IS NOT NULL AND status IN ('QUEUED', 'RUNNING');

-- Retention: finished jobs by age.
CREATE INDEX queue_job_finished_idx ON queue_job (status, finished_at)
    WHERE status IN ('SUCCEEDED', 'FAILED', 'CANCELLED');
