-- Deadlines, cancelling running jobs, the crash budget, and awaited jobs.
-- deadline: a job not started by then never starts and ends CANCELLED.
-- cancel_requested_at: cancel(id) of a RUNNING job; the instance that holds it stops it.
-- crashes: attempts that ended because their lease expired (the worker died or froze),
-- counted apart from handler failures; the reaper fails the job after too many.
ALTER TABLE queue_job ADD COLUMN deadline DATETIME(6);
ALTER TABLE queue_job ADD COLUMN cancel_requested_at DATETIME(6);
ALTER TABLE queue_job ADD COLUMN crashes INT NOT NULL DEFAULT 0;
-- awaited: 1 once a JobQueue.await is waiting for the job; where finishing jobs are announced
-- (PostgreSQL's NOTIFY), a completion flush announces only these, so the hot path pays
-- nothing for jobs nobody awaits.
ALTER TABLE queue_job ADD COLUMN awaited SMALLINT NOT NULL DEFAULT 0;

-- The expiry sweep: queued jobs by deadline. No partial indexes here: the index is on a
-- generated column that holds the deadline only while the job is queued, so jobs without a
-- deadline keep a NULL entry that their status changes do not move.
ALTER TABLE queue_job ADD COLUMN queued_deadline DATETIME(6)
    GENERATED ALWAYS AS (CASE WHEN status = 'QUEUED' THEN deadline END) VIRTUAL;
CREATE INDEX queue_job_deadline_idx ON queue_job (queued_deadline);
