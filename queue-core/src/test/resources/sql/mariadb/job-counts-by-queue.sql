SELECT queue, status, COUNT(*) AS jobs,
    MIN(CASE WHEN status = 'QUEUED' AND run_at <= UTC_TIMESTAMP(6) THEN run_at END) AS oldest_due, UTC_TIMESTAMP(6) AS db_now
FROM queue_job
GROUP BY queue, status
