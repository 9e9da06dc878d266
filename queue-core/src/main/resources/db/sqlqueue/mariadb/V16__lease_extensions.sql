-- A lease extended beside its job's row: see the PostgreSQL migration of the same version.
CREATE TABLE queue_lease_extension (
    job_id     BIGINT      NOT NULL,
    token      BIGINT      NOT NULL,
    expires_at DATETIME(6) NOT NULL,
    stopped    BOOLEAN     NOT NULL DEFAULT FALSE,
    PRIMARY KEY (job_id, token)
) ENGINE = InnoDB DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
