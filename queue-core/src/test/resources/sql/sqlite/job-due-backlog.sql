SELECT queue, handler, COUNT(*) AS due_jobs, MIN(run_at) AS oldest_run_at, strftime('%Y-%m-%d %H:%M:%f', 'now') AS db_now FROM queue_job
WHERE status = 'QUEUED' AND run_at <= strftime('%Y-%m-%d %H:%M:%f', 'now')
GROUP BY queue, handler
