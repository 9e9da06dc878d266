INSERT INTO queue_lease_extension (job_id, token, expires_at) VALUES (?, ?, strftime('%Y-%m-%d %H:%M:%f', 'now', (CAST(? AS REAL) / 1000) || ' seconds'))
