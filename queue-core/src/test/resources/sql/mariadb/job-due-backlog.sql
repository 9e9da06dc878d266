SELECT queue, handler, COUNT(*) AS due_jobs, MIN(run_at) AS oldest_run_at, UTC_TIMESTAMP(6) AS db_now FROM queue_job
WHERE status = 'QUEUED' AND run_at <= UTC_TIMESTAMP(6)
GROUP BY queue, handler
