-- At most one RUNNING job per group, held by the database itself (see the PostgreSQL
-- migration). SQLite has one writer at a time, so claims cannot race here; the index keeps
-- the rule the same on every database.
CREATE UNIQUE INDEX queue_job_running_group_idx ON queue_job (group_key)
    WHERE group_key IS NOT NULL AND status = 'RUNNING';
