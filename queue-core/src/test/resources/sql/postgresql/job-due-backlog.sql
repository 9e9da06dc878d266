SELECT queue, handler, COUNT(*) AS due_jobs, MIN(run_at) AS oldest_run_at, now() AS db_now FROM queue_job
WHERE status = 'QUEUED' AND run_at <= now()
GROUP BY queue, handler
