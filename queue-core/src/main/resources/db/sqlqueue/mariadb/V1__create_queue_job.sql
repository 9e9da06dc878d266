-- sqlqueue's table on MariaDB 10.6+ and MySQL 8.0.1+ (InnoDB), one file for both.
-- Times are DATETIME(6) in UTC, always written by the queue from UTC_TIMESTAMP(6), so the
-- columns have no defaults (MySQL before 8.0.13 allows no expression defaults).
-- utf8mb4_bin: queue, handler and key names compare byte for byte, as on every other
-- database ('Mail' and 'mail' are two queues).
-- JSON columns are LONGTEXT checked with JSON_VALID: what MariaDB's JSON type is, and on
-- MySQL the text stays as written instead of being normalized by its binary JSON type.
-- (MySQL enforces CHECK constraints from 8.0.16; older versions parse and ignore them.)
CREATE TABLE queue_job (
    id               BIGINT       NOT NULL AUTO_INCREMENT PRIMARY KEY,
    queue            VARCHAR(64)  NOT NULL,
    handler          VARCHAR(128) NOT NULL,
    payload          LONGTEXT     NOT NULL CHECK (JSON_VALID(payload)),
    status           VARCHAR(16)  NOT NULL DEFAULT 'QUEUED'
                     CHECK (status IN ('QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED')),
    priority         INT          NOT NULL DEFAULT 0,
    run_at           DATETIME(6)  NOT NULL,
    attempts         INT          NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    max_attempts     INT          NOT NULL CHECK (max_attempts >= 1),
    lease_owner      VARCHAR(128),
    lease_token      BIGINT,
    lease_expires_at DATETIME(6),
    version          BIGINT       NOT NULL DEFAULT 0,
    unique_key       VARCHAR(255),
    group_key        VARCHAR(255),
    last_error       TEXT,
    result           LONGTEXT     CHECK (result IS NULL OR JSON_VALID(result)),
    created_at       DATETIME(6)  NOT NULL,
    updated_at       DATETIME(6)  NOT NULL,
    started_at       DATETIME(6),
    finished_at      DATETIME(6),
    -- No partial indexes here: the unique key is enforced on a generated column that holds
    -- the key only while the job is unfinished (NULLs never collide in a unique index).
    live_unique_key  VARCHAR(255) GENERATED ALWAYS AS
                     (CASE WHEN status IN ('QUEUED', 'RUNNING') THEN unique_key END) VIRTUAL,
    CONSTRAINT queue_job_lease_check
        CHECK (status <> 'RUNNING' OR (lease_token IS NOT NULL AND lease_expires_at IS NOT NULL))
) ENGINE = InnoDB DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;

-- The claim's hot path, in the claim's ORDER BY, so that a locking read with LIMIT reads and
-- locks only the rows it takes (descending parts need MariaDB 10.8+ / MySQL 8; older
-- MariaDB accepts DESC and sorts instead).
CREATE INDEX queue_job_ready_idx ON queue_job (status, queue, priority DESC, run_at, id);

-- The reaper: running jobs by lease expiry.
CREATE INDEX queue_job_lease_idx ON queue_job (status, lease_expires_at);

-- At most one unfinished job per unique key.
CREATE UNIQUE INDEX queue_job_unique_key_idx ON queue_job (live_unique_key);

-- FIFO per group: is another job of this group running, or an older one waiting?
CREATE INDEX queue_job_group_idx ON queue_job (group_key, id);

-- Retention: finished jobs by age.
CREATE INDEX queue_job_finished_idx ON queue_job (status, finished_at);
