-- At most one RUNNING job per group, held by the database itself: the claim's condition
-- ("nothing of the group running, nothing older waiting") cannot see claims and enqueues
-- that have not committed yet, so two claims could each take a job of one group. With this
-- index the later claim fails and is made again. H2 has no partial indexes: the index is
-- on a generated column that holds the group key only while the job runs.
ALTER TABLE queue_job ADD COLUMN running_group_key VARCHAR(255)
    GENERATED ALWAYS AS (CASE WHEN status = 'RUNNING' THEN group_key END);
CREATE UNIQUE INDEX queue_job_running_group_idx ON queue_job (running_group_key);
