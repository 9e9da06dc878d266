SELECT concurrency_key, COUNT(*) AS jobs FROM queue_job
WHERE queue = ? AND status = 'RUNNING'
GROUP BY concurrency_key
