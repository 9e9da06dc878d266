SELECT j.id, j.handler, j.status FROM queue_dependency d JOIN queue_job j ON j.id = d.depends_on
WHERE d.job_id = ?
ORDER BY j.id
