-- Durable steps, sleeps and signals: see the PostgreSQL migration of the same version.
CREATE TABLE queue_job_step (
    job_id      BIGINT       NOT NULL,
    seq         BIGINT       NOT NULL,
    kind        VARCHAR(8)   NOT NULL,
    name        VARCHAR(255) NOT NULL,
    result      LONGTEXT     CHECK (result IS NULL OR JSON_VALID(result)),
    wake_at     DATETIME(6),
    timed_out   INT          NOT NULL DEFAULT 0,
    recorded_at DATETIME(6)  NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
    PRIMARY KEY (job_id, kind, name)
) ENGINE = InnoDB DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;

CREATE TABLE queue_job_signal (
    job_id      BIGINT       NOT NULL,
    name        VARCHAR(255) NOT NULL,
    payload     LONGTEXT     NOT NULL CHECK (JSON_VALID(payload)),
    sent_at     DATETIME(6)  NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
    PRIMARY KEY (job_id, name)
) ENGINE = InnoDB DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
