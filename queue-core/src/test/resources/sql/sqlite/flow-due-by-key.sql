SELECT concurrency_key, COUNT(*) AS jobs FROM queue_job
WHERE queue = ? AND status = 'QUEUED' AND run_at <= strftime('%Y-%m-%d %H:%M:%f', 'now')
GROUP BY concurrency_key
