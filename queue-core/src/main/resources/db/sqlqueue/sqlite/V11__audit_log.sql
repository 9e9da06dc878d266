-- Audit log of operator actions (docs/operations.md#audit-log): one row per action that
-- changed something, written by QueueAdmin (the endpoint, the dashboard and user code all
-- act through it), in the action's own transaction where it has one. acted_at: the
-- database's clock; actor: who (the signed-in user, else the name the caller gave, else
-- NULL); queue, job_id, schedule: what it acted on; jobs: how many jobs it changed.
-- Deleted after sqlqueue.retention.audit by the pruner.
CREATE TABLE queue_audit (
    id       INTEGER      PRIMARY KEY AUTOINCREMENT,
    acted_at TEXT         NOT NULL,
    actor    varchar(255),
    action   varchar(32)  NOT NULL,
    queue    varchar(64),
    job_id   INTEGER,
    schedule varchar(255),
    jobs     INTEGER      NOT NULL,
    detail   TEXT
);

CREATE INDEX queue_audit_at_idx ON queue_audit (acted_at);
