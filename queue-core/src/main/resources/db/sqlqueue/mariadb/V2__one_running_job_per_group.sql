-- At most one RUNNING job per group, held by the database itself: the claim's condition
-- ("nothing of the group running, nothing older waiting") cannot see claims and enqueues
-- that have not committed yet, so two claims could each take a job of one group. With this
-- index the later claim waits for the earlier one and fails, and is made again. No partial
-- indexes here: the index is on a generated column that holds the group key only while the
-- job runs (NULLs never collide in a unique index).
ALTER TABLE queue_job
    ADD COLUMN running_group_key VARCHAR(255) COLLATE utf8mb4_bin
        GENERATED ALWAYS AS (CASE WHEN status = 'RUNNING' THEN group_key END) VIRTUAL,
    ADD UNIQUE INDEX queue_job_running_group_idx (running_group_key);
