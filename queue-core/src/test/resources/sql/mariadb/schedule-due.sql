SELECT s.*, j.status AS last_job_status, UTC_TIMESTAMP(6) AS db_now
FROM queue_schedule s LEFT JOIN queue_job j ON j.id = s.last_job_id
WHERE s.next_run_at <= UTC_TIMESTAMP(6) AND s.paused = FALSE AND s.orphaned = FALSE
ORDER BY s.next_run_at
LIMIT ?
