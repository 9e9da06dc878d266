SELECT id, finished_at FROM queue_job
WHERE status = ? AND finished_at < (UTC_TIMESTAMP(6) + INTERVAL (? * 1000) MICROSECOND)
ORDER BY finished_at
LIMIT ?
FOR UPDATE SKIP LOCKED
