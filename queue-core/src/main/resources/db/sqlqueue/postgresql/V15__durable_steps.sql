-- Durable steps, sleeps and signals (docs/durable-steps.md). Side tables, as tags and
-- attempts are: the claim, the heartbeat and the completion never read them, so a job that
-- records nothing costs nothing more. Deleted with their job (the pruner, the reset).
-- No foreign key, for the same reasons as queue_attempt.
--
-- queue_job_step: what a job's runs recorded, keyed by kind and name; seq numbers a job's
-- records in the order they were written (a clock's ties would not: SQLite's has milliseconds).
--   kind 'step':   a step's result as JSON text ('null' for none), written once when its body returned;
--   kind 'sleep':  name '1', '2', ... (the sleeps in the order a run reaches them); wake_at: when it ends;
--   kind 'signal': a wait for the signal of that name; wake_at: when the wait times out;
--                  timed_out = 1 once a run found it timed out, so every later run sees the same.
CREATE TABLE queue_job_step (
    job_id      bigint       NOT NULL,
    seq         bigint       NOT NULL,
    kind        varchar(8)   NOT NULL,
    name        varchar(255) NOT NULL,
    result      text,
    wake_at     timestamptz,
    timed_out   integer      NOT NULL DEFAULT 0,
    recorded_at timestamptz  NOT NULL DEFAULT now(),
    PRIMARY KEY (job_id, kind, name)
);

-- queue_job_signal: signals sent to jobs (JobQueue.signal), one per job and name, kept until
-- the job is deleted; a job that waits for a name reads it here.
CREATE TABLE queue_job_signal (
    job_id      bigint       NOT NULL,
    name        varchar(255) NOT NULL,
    payload     text         NOT NULL,
    sent_at     timestamptz  NOT NULL DEFAULT now(),
    PRIMARY KEY (job_id, name)
);
