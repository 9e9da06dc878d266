INSERT INTO queue_lease_extension (job_id, token, expires_at, stopped) VALUES (?, ?, CURRENT_TIMESTAMP, TRUE)
