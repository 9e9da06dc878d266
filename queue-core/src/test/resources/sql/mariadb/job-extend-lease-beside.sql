INSERT INTO queue_lease_extension (job_id, token, expires_at) VALUES (?, ?, (UTC_TIMESTAMP(6) + INTERVAL (? * 1000) MICROSECOND))
