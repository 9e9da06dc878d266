-- At most one RUNNING job per group, held by the database itself: the claim's condition
-- ("nothing of the group running, nothing older waiting") cannot see claims and enqueues
-- that have not committed yet, so two claims could each take a job of one group. With this
-- index the later claim waits for the earlier one and fails, and is made again.
CREATE UNIQUE INDEX queue_job_running_group_idx ON queue_job (group_key)
    WHERE group_key IS NOT NULL AND status = 'RUNNING';
