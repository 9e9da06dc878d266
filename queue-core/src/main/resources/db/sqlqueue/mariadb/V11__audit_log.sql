-- Audit log of operator actions (docs/operations.md#audit-log): one row per action that
-- changed something, written by QueueAdmin (the endpoint, the dashboard and user code all
-- act through it), in the action's own transaction where it has one. acted_at: the
-- database's clock; actor: who (the signed-in user, else the name the caller gave, else
-- NULL); queue, job_id, schedule: what it acted on; jobs: how many jobs it changed.
-- Deleted after sqlqueue.retention.audit by the pruner.
-- Times are UTC DATETIME(6) written by the queue (UTC_TIMESTAMP(6)), names utf8mb4_bin, as queue_job.
CREATE TABLE queue_audit (
    id       BIGINT       NOT NULL AUTO_INCREMENT PRIMARY KEY,
    acted_at DATETIME(6)  NOT NULL,
    actor    VARCHAR(255),
    action   VARCHAR(32)  NOT NULL,
    queue    VARCHAR(64),
    job_id   BIGINT,
    schedule VARCHAR(255),
    jobs     INT          NOT NULL,
    detail   TEXT
) ENGINE = InnoDB DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;

CREATE INDEX queue_audit_at_idx ON queue_audit (acted_at);
