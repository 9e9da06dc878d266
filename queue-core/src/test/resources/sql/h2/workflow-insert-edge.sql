INSERT INTO queue_dependency (depends_on, job_id, settled) VALUES (?, ?, ?)
