INSERT INTO queue_lease_extension (job_id, token, expires_at, stopped) VALUES (?, ?, UTC_TIMESTAMP(6), TRUE)
