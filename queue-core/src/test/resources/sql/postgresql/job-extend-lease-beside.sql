INSERT INTO queue_lease_extension (job_id, token, expires_at) VALUES (?, ?, (now() + CAST(? AS double precision) * interval '1 millisecond'))
