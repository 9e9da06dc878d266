SELECT queue, status, COUNT(*) AS jobs,
    MIN(CASE WHEN status = 'QUEUED' AND run_at <= strftime('%Y-%m-%d %H:%M:%f', 'now') THEN run_at END) AS oldest_due, strftime('%Y-%m-%d %H:%M:%f', 'now') AS db_now
FROM queue_job
GROUP BY queue, status
