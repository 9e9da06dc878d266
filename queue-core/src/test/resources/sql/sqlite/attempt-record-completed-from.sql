INSERT INTO queue_attempt (job_id, attempt, worker, started_at, ended_at, outcome, status, error)
SELECT id, attempts, lease_owner, started_at, finished_at, 'succeeded', status, NULL FROM done
