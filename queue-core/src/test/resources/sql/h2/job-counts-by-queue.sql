SELECT queue, status, COUNT(*) AS jobs,
    MIN(CASE WHEN status = 'QUEUED' AND run_at <= CURRENT_TIMESTAMP THEN run_at END) AS oldest_due, CURRENT_TIMESTAMP AS db_now
FROM queue_job
GROUP BY queue, status
