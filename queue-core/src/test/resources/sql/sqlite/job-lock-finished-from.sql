SELECT id, finished_at FROM queue_job
WHERE status = ? AND finished_at >= ? AND finished_at < strftime('%Y-%m-%d %H:%M:%f', 'now', (CAST(? AS REAL) / 1000) || ' seconds')
ORDER BY finished_at
LIMIT ?
FOR UPDATE SKIP LOCKED
