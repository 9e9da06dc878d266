-- Durable steps, sleeps and signals: see the PostgreSQL migration of the same version.
CREATE TABLE queue_job_step (
    job_id      BIGINT       NOT NULL,
    seq         BIGINT       NOT NULL,
    kind        VARCHAR(8)   NOT NULL,
    name        VARCHAR(255) NOT NULL,
    result      CHARACTER LARGE OBJECT,
    wake_at     TIMESTAMP WITH TIME ZONE,
    timed_out   INTEGER      DEFAULT 0 NOT NULL,
    recorded_at TIMESTAMP WITH TIME ZONE DEFAULT CURRENT_TIMESTAMP NOT NULL,
    PRIMARY KEY (job_id, kind, name)
);

CREATE TABLE queue_job_signal (
    job_id      BIGINT       NOT NULL,
    name        VARCHAR(255) NOT NULL,
    payload     CHARACTER LARGE OBJECT NOT NULL,
    sent_at     TIMESTAMP WITH TIME ZONE DEFAULT CURRENT_TIMESTAMP NOT NULL,
    PRIMARY KEY (job_id, name)
);
