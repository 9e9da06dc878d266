-- The generated columns behind the unique key, one-running-job-per-group and deadline indexes
-- are STORED (MariaDB: PERSISTENT), no longer VIRTUAL. InnoDB keeps no value of an indexed
-- virtual column: to purge an old version of a job row it computes the value through the SQL
-- layer, opening the table from a background thread, and on MariaDB 10.11 that open can fail
-- ("Incorrect information in file: './…/queue_job.frm'"), after which purge tries again without
-- end and the server's memory grows until it crashes: seen on a Galera node under the queue's
-- load and in a killed node's crash-recovery pass (docs/high-availability.md). A stored value
-- is read from the row like any other column's. Same expressions, same index names; a column's
-- storage cannot be changed in place, so each is dropped and added again (one table rebuild,
-- which blocks writes to queue_job while it runs).
ALTER TABLE queue_job
    DROP INDEX queue_job_unique_key_idx,
    DROP INDEX queue_job_running_group_idx,
    DROP INDEX queue_job_deadline_idx,
    DROP COLUMN live_unique_key,
    DROP COLUMN running_group_key,
    DROP COLUMN queued_deadline,
    ADD COLUMN live_unique_key VARCHAR(255) GENERATED ALWAYS AS
        (CASE WHEN status IN ('WAITING', 'QUEUED', 'RUNNING') THEN unique_key END) STORED,
    ADD COLUMN running_group_key VARCHAR(255) COLLATE utf8mb4_bin
        GENERATED ALWAYS AS (CASE WHEN status = 'RUNNING' THEN group_key END) STORED,
    ADD COLUMN queued_deadline DATETIME(6)
        GENERATED ALWAYS AS (CASE WHEN status = 'QUEUED' THEN deadline END) STORED,
    ADD UNIQUE INDEX queue_job_unique_key_idx (live_unique_key),
    ADD UNIQUE INDEX queue_job_running_group_idx (running_group_key),
    ADD INDEX queue_job_deadline_idx (queued_deadline);
