SELECT queue, handler, COUNT(*) AS due_jobs, MIN(run_at) AS oldest_run_at, CURRENT_TIMESTAMP AS db_now FROM queue_job
WHERE status = 'QUEUED' AND run_at <= CURRENT_TIMESTAMP
GROUP BY queue, handler
