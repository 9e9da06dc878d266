-- Attempt history (docs/operations.md#attempt-history). One row per attempt that ended,
-- written in the transaction of the fenced write that ended it (a success, a retry, a
-- failure, a cancel, the reaper's re-queue of a lost lease), so an attempt whose lease was
-- lost gets the row of whoever won the fence, never two. Deleted with its job (the pruner).
-- No foreign key: the completion flush stays one statement, and SQLite enforces none by default.
-- outcome: succeeded, retried, failed, cancelled, lease-expired; status: the job's after it.
-- Times are UTC DATETIME(6) written by the queue (UTC_TIMESTAMP(6)), names utf8mb4_bin, as queue_job.
CREATE TABLE queue_attempt (
    id         BIGINT       NOT NULL AUTO_INCREMENT PRIMARY KEY,
    job_id     BIGINT       NOT NULL,
    attempt    INT          NOT NULL,
    worker     VARCHAR(128),
    started_at DATETIME(6),
    ended_at   DATETIME(6)  NOT NULL,
    outcome    VARCHAR(16)  NOT NULL,
    status     VARCHAR(16)  NOT NULL,
    error      TEXT
) ENGINE = InnoDB DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;

CREATE INDEX queue_attempt_job_idx ON queue_attempt (job_id, id);
