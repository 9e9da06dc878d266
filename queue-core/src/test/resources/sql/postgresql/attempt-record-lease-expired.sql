INSERT INTO queue_attempt (job_id, attempt, worker, started_at, ended_at, outcome, status, error)
SELECT id, attempts, lease_owner, started_at, now(), 'lease-expired', status, last_error FROM queue_job
WHERE id = ?
