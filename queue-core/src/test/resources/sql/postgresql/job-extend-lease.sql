UPDATE queue_job SET lease_expires_at = (now() + CAST(? AS double precision) * interval '1 millisecond')
WHERE id = ? AND lease_token = ? AND status = 'RUNNING'
