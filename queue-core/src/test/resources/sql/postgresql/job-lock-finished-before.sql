SELECT id, finished_at FROM queue_job
WHERE status = ? AND finished_at < (now() + CAST(? AS double precision) * interval '1 millisecond')
ORDER BY finished_at
LIMIT ?
FOR UPDATE SKIP LOCKED
