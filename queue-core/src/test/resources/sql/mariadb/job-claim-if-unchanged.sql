UPDATE queue_job SET status = 'RUNNING', attempts = attempts + 1, lease_owner = ?, lease_token = ?,
    lease_expires_at = (UTC_TIMESTAMP(6) + INTERVAL (? * 1000) MICROSECOND), started_at = UTC_TIMESTAMP(6), updated_at = UTC_TIMESTAMP(6), version = version + 1
WHERE id = ? AND status = 'QUEUED' AND version = ?
