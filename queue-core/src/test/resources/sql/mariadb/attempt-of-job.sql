SELECT attempt, worker, started_at, ended_at, outcome, status, error FROM queue_attempt
WHERE job_id = ?
ORDER BY id
