INSERT INTO queue_lease_extension (job_id, token, expires_at, stopped) VALUES (?, ?, strftime('%Y-%m-%d %H:%M:%f', 'now'), TRUE)
