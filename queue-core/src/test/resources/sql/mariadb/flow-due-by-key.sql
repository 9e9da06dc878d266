SELECT concurrency_key, COUNT(*) AS jobs FROM queue_job
WHERE queue = ? AND status = 'QUEUED' AND run_at <= UTC_TIMESTAMP(6)
GROUP BY concurrency_key
