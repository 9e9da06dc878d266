-- Workflows: jobs that wait for other jobs (dependencies), and batches with a callback.
-- See the PostgreSQL migration for what each column means.
--
-- SQLite cannot change a CHECK constraint, and the status check must accept WAITING: the
-- table is rebuilt (SQLite's own procedure for such changes): a new table with every column
-- of V1 to V6 and the new ones, the rows copied with their ids, the id sequence carried over
-- (AUTOINCREMENT never reuses an id, not even one pruned before this migration), the old
-- table dropped, the new one renamed, and every index of V1 to V6 made again.
CREATE TABLE queue_job_v7 (
    id                    INTEGER      PRIMARY KEY AUTOINCREMENT,
    queue                 VARCHAR(64)  NOT NULL,
    handler               VARCHAR(128) NOT NULL,
    payload               TEXT         NOT NULL,
    status                VARCHAR(16)  NOT NULL DEFAULT 'QUEUED'
                          CHECK (status IN ('WAITING', 'QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED')),
    priority              INTEGER      NOT NULL DEFAULT 0,
    run_at                TEXT         NOT NULL,
    attempts              INTEGER      NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    max_attempts          INTEGER      NOT NULL CHECK (max_attempts >= 1),
    lease_owner           VARCHAR(128),
    lease_token           INTEGER,
    lease_expires_at      TEXT,
    version               INTEGER      NOT NULL DEFAULT 0,
    unique_key            VARCHAR(255),
    group_key             VARCHAR(255),
    last_error            TEXT,
    result                TEXT,
    created_at            TEXT         NOT NULL,
    updated_at            TEXT         NOT NULL,
    started_at            TEXT,
    finished_at           TEXT,
    scheduled_for         TEXT,
    deadline              TEXT,
    cancel_requested_at   TEXT,
    crashes               INTEGER      NOT NULL DEFAULT 0,
    awaited               INTEGER      NOT NULL DEFAULT 0,
    headers               TEXT,
    concurrency_key       VARCHAR(255),
    batch_id              INTEGER,
    waiting_for           INTEGER      NOT NULL DEFAULT 0 CHECK (waiting_for >= 0),
    on_dependency_failure VARCHAR(8)   NOT NULL DEFAULT 'CANCEL' CHECK (on_dependency_failure IN ('CANCEL', 'RUN')),
    settles               INTEGER      NOT NULL DEFAULT 0,
    CHECK (status <> 'RUNNING' OR (lease_token IS NOT NULL AND lease_expires_at IS NOT NULL))
);

INSERT INTO queue_job_v7 (id, queue, handler, payload, status, priority, run_at, attempts, max_attempts,
                          lease_owner, lease_token, lease_expires_at, version, unique_key, group_key, last_error,
                          result, created_at, updated_at, started_at, finished_at, scheduled_for, deadline,
                          cancel_requested_at, crashes, awaited, headers, concurrency_key)
SELECT id, queue, handler, payload, status, priority, run_at, attempts, max_attempts,
       lease_owner, lease_token, lease_expires_at, version, unique_key, group_key, last_error,
       result, created_at, updated_at, started_at, finished_at, scheduled_for, deadline,
       cancel_requested_at, crashes, awaited, headers, concurrency_key
FROM queue_job;

DELETE FROM sqlite_sequence WHERE name = 'queue_job_v7';
INSERT INTO sqlite_sequence (name, seq) SELECT 'queue_job_v7', seq FROM sqlite_sequence WHERE name = 'queue_job';

DROP TABLE queue_job;
ALTER TABLE queue_job_v7 RENAME TO queue_job;

-- V1
CREATE INDEX queue_job_ready_idx ON queue_job (queue, priority DESC, run_at, id) WHERE status = 'QUEUED';
CREATE INDEX queue_job_lease_idx ON queue_job (lease_expires_at) WHERE status = 'RUNNING';
-- A waiting job is unfinished too: at most one unfinished job per unique key.
CREATE UNIQUE INDEX queue_job_unique_key_idx ON queue_job (unique_key)
    WHERE unique_key IS NOT NULL AND status IN ('WAITING', 'QUEUED', 'RUNNING');
CREATE INDEX queue_job_group_idx ON queue_job (group_key, id)
    WHERE group_key IS NOT NULL AND status IN ('QUEUED', 'RUNNING');
CREATE INDEX queue_job_finished_idx ON queue_job (status, finished_at)
    WHERE status IN ('SUCCEEDED', 'FAILED', 'CANCELLED');
-- V2
CREATE UNIQUE INDEX queue_job_running_group_idx ON queue_job (group_key)
    WHERE group_key IS NOT NULL AND status = 'RUNNING';
-- V4
CREATE INDEX queue_job_deadline_idx ON queue_job (deadline) WHERE status = 'QUEUED' AND deadline IS NOT NULL;
-- V6 added a column (concurrency_key) and tables of its own, no index of queue_job.

CREATE TABLE queue_dependency (
    depends_on INTEGER NOT NULL,
    job_id     INTEGER NOT NULL,
    settled    INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (depends_on, job_id)
);
CREATE INDEX queue_dependency_job_idx ON queue_dependency (job_id);

CREATE TABLE queue_batch (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    total       INTEGER NOT NULL,
    remaining   INTEGER NOT NULL CHECK (remaining >= 0),
    succeeded   INTEGER NOT NULL DEFAULT 0,
    failed      INTEGER NOT NULL DEFAULT 0,
    cancelled   INTEGER NOT NULL DEFAULT 0,
    callback_id INTEGER,
    created_at  TEXT    NOT NULL,
    finished_at TEXT
);
CREATE INDEX queue_batch_callback_idx ON queue_batch (callback_id) WHERE callback_id IS NOT NULL;
