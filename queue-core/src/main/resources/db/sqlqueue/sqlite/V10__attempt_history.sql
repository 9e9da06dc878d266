-- Attempt history (docs/operations.md#attempt-history). One row per attempt that ended,
-- written in the transaction of the fenced write that ended it (a success, a retry, a
-- failure, a cancel, the reaper's re-queue of a lost lease), so an attempt whose lease was
-- lost gets the row of whoever won the fence, never two. Deleted with its job (the pruner).
-- No foreign key: the completion flush stays one statement, and SQLite enforces none by default.
-- outcome: succeeded, retried, failed, cancelled, lease-expired; status: the job's after it.
CREATE TABLE queue_attempt (
    id         INTEGER      PRIMARY KEY AUTOINCREMENT,
    job_id     INTEGER      NOT NULL,
    attempt    INTEGER      NOT NULL,
    worker     varchar(128),
    started_at TEXT,
    ended_at   TEXT         NOT NULL,
    outcome    varchar(16)  NOT NULL,
    status     varchar(16)  NOT NULL,
    error      TEXT
);

CREATE INDEX queue_attempt_job_idx ON queue_attempt (job_id, id);
