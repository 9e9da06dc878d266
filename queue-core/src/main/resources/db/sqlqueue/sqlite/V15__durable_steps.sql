-- Durable steps, sleeps and signals: see the PostgreSQL migration of the same version.
-- Times are written by the queue as the dialect's fixed-width UTC text.
CREATE TABLE queue_job_step (
    job_id      INTEGER      NOT NULL,
    seq         INTEGER      NOT NULL,
    kind        varchar(8)   NOT NULL,
    name        varchar(255) NOT NULL,
    result      TEXT,
    wake_at     TEXT,
    timed_out   INTEGER      NOT NULL DEFAULT 0,
    recorded_at TEXT         NOT NULL,
    PRIMARY KEY (job_id, kind, name)
);

CREATE TABLE queue_job_signal (
    job_id      INTEGER      NOT NULL,
    name        varchar(255) NOT NULL,
    payload     TEXT         NOT NULL,
    sent_at     TEXT         NOT NULL,
    PRIMARY KEY (job_id, name)
);
