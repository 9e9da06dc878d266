-- Workflows: jobs that wait for other jobs (dependencies), and batches with a callback.
-- See the PostgreSQL migration for what each column means.
--
-- The status check is a column check here: MariaDB replaces it with the column's new
-- definition. MySQL keeps column checks as table constraints (named queue_job_chk_<n>), so
-- the old one, which refuses WAITING, is found by its text and dropped; on MariaDB that
-- finds nothing and does nothing.
ALTER TABLE queue_job MODIFY status VARCHAR(16) NOT NULL DEFAULT 'QUEUED'
    CHECK (status IN ('WAITING', 'QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED'));
SET @sqlqueue_drop_check = (
    SELECT CONCAT('ALTER TABLE queue_job DROP CHECK `', c.CONSTRAINT_NAME, '`')
    FROM information_schema.CHECK_CONSTRAINTS c
    JOIN information_schema.TABLE_CONSTRAINTS t
      ON t.CONSTRAINT_SCHEMA = c.CONSTRAINT_SCHEMA AND t.CONSTRAINT_NAME = c.CONSTRAINT_NAME
    WHERE t.TABLE_SCHEMA = DATABASE() AND t.TABLE_NAME = 'queue_job' AND t.CONSTRAINT_TYPE = 'CHECK'
      AND c.CHECK_CLAUSE LIKE '%''CANCELLED''%' AND c.CHECK_CLAUSE NOT LIKE '%WAITING%'
      AND c.CHECK_CLAUSE NOT LIKE '%<>%'
    LIMIT 1);
SET @sqlqueue_drop_check = COALESCE(@sqlqueue_drop_check, 'DO 0');
PREPARE sqlqueue_drop_check FROM @sqlqueue_drop_check;
EXECUTE sqlqueue_drop_check;
DEALLOCATE PREPARE sqlqueue_drop_check;

ALTER TABLE queue_job
    ADD COLUMN batch_id BIGINT,
    ADD COLUMN waiting_for INT NOT NULL DEFAULT 0 CHECK (waiting_for >= 0),
    ADD COLUMN on_dependency_failure VARCHAR(8) NOT NULL DEFAULT 'CANCEL'
        CHECK (on_dependency_failure IN ('CANCEL', 'RUN')),
    ADD COLUMN settles SMALLINT NOT NULL DEFAULT 0;

-- A waiting job is unfinished too: at most one unfinished job per unique key.
ALTER TABLE queue_job
    DROP INDEX queue_job_unique_key_idx,
    MODIFY live_unique_key VARCHAR(255) GENERATED ALWAYS AS
        (CASE WHEN status IN ('WAITING', 'QUEUED', 'RUNNING') THEN unique_key END) VIRTUAL,
    ADD UNIQUE INDEX queue_job_unique_key_idx (live_unique_key);

CREATE TABLE queue_dependency (
    depends_on BIGINT NOT NULL,
    job_id     BIGINT NOT NULL,
    settled    SMALLINT NOT NULL DEFAULT 0,
    PRIMARY KEY (depends_on, job_id),
    INDEX queue_dependency_job_idx (job_id)
) ENGINE = InnoDB;

CREATE TABLE queue_batch (
    id          BIGINT      NOT NULL AUTO_INCREMENT PRIMARY KEY,
    total       INT         NOT NULL,
    remaining   INT         NOT NULL CHECK (remaining >= 0),
    succeeded   INT         NOT NULL DEFAULT 0,
    failed      INT         NOT NULL DEFAULT 0,
    cancelled   INT         NOT NULL DEFAULT 0,
    callback_id BIGINT,
    created_at  DATETIME(6) NOT NULL,
    finished_at DATETIME(6),
    INDEX queue_batch_callback_idx (callback_id)
) ENGINE = InnoDB;
