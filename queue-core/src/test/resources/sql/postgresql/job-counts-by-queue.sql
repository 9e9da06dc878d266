SELECT queue, status, COUNT(*) AS jobs,
    MIN(CASE WHEN status = 'QUEUED' AND run_at <= now() THEN run_at END) AS oldest_due, now() AS db_now
FROM queue_job
GROUP BY queue, status
