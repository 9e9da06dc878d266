-- Deadlines, cancelling running jobs, the crash budget, and awaited jobs.
-- deadline: a job not started by then never starts and ends CANCELLED.
-- cancel_requested_at: cancel(id) of a RUNNING job; the instance that holds it stops it.
-- crashes: attempts that ended because their lease expired (the worker died or froze),
-- counted apart from handler failures; the reaper fails the job after too many.
ALTER TABLE queue_job ADD COLUMN deadline timestamptz;
ALTER TABLE queue_job ADD COLUMN cancel_requested_at timestamptz;
ALTER TABLE queue_job ADD COLUMN crashes integer NOT NULL DEFAULT 0;
-- awaited: 1 once a JobQueue.await is waiting for the job; where finishing jobs are announced
-- (PostgreSQL's NOTIFY), a completion flush announces only these, so the hot path pays
-- nothing for jobs nobody awaits.
ALTER TABLE queue_job ADD COLUMN awaited smallint NOT NULL DEFAULT 0;

-- The expiry sweep: queued jobs by deadline. Partial, so jobs without a deadline (and every
-- status change of them) never touch it.
CREATE INDEX queue_job_deadline_idx ON queue_job (deadline) WHERE status = 'QUEUED' AND deadline IS NOT NULL;
