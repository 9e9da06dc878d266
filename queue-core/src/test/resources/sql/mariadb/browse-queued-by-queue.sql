SELECT queue,
    SUM(CASE WHEN run_at <= UTC_TIMESTAMP(6) THEN 1 ELSE 0 END) AS due_jobs,
    SUM(CASE WHEN run_at > UTC_TIMESTAMP(6) AND attempts = 0 THEN 1 ELSE 0 END) AS delayed_jobs,
    SUM(CASE WHEN run_at > UTC_TIMESTAMP(6) AND attempts > 0 THEN 1 ELSE 0 END) AS backing_off
FROM queue_job
WHERE status = 'QUEUED'
GROUP BY queue
