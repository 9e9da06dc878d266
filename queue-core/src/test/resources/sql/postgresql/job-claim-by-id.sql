UPDATE queue_job SET status = 'RUNNING', attempts = attempts + 1, lease_owner = ?, lease_token = ?,
    lease_expires_at = (now() + CAST(? AS double precision) * interval '1 millisecond'), started_at = now(), updated_at = now(), version = version + 1
WHERE id = ? AND status = 'QUEUED'
