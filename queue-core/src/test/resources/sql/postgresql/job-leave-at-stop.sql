INSERT INTO queue_lease_extension (job_id, token, expires_at, stopped) VALUES (?, ?, now(), TRUE)
