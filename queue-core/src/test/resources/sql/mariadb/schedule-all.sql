SELECT s.*, j.status AS last_job_status, UTC_TIMESTAMP(6) AS db_now
FROM queue_schedule s LEFT JOIN queue_job j ON j.id = s.last_job_id
ORDER BY s.name
