SELECT id, finished_at FROM queue_job
WHERE status = ? AND finished_at >= ? AND finished_at < DATEADD(MILLISECOND, CAST(? AS BIGINT), CURRENT_TIMESTAMP)
ORDER BY finished_at
LIMIT ?
