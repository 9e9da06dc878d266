SELECT s.*, j.status AS last_job_status, CURRENT_TIMESTAMP AS db_now
FROM queue_schedule s LEFT JOIN queue_job j ON j.id = s.last_job_id
WHERE s.next_run_at <= CURRENT_TIMESTAMP AND s.paused = FALSE AND s.orphaned = FALSE
ORDER BY s.next_run_at
LIMIT ?
