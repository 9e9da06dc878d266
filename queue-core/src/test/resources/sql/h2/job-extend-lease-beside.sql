INSERT INTO queue_lease_extension (job_id, token, expires_at) VALUES (?, ?, DATEADD(MILLISECOND, CAST(? AS BIGINT), CURRENT_TIMESTAMP))
