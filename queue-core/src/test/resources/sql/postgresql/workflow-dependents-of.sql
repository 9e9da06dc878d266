SELECT j.id, j.handler, j.status FROM queue_dependency d JOIN queue_job j ON j.id = d.job_id
WHERE d.depends_on = ?
ORDER BY j.id
