UPDATE queue_job SET status = 'RUNNING', attempts = attempts + 1, lease_owner = ?, lease_token = ?,
    lease_expires_at = DATEADD(MILLISECOND, CAST(? AS BIGINT), CURRENT_TIMESTAMP), started_at = CURRENT_TIMESTAMP, updated_at = CURRENT_TIMESTAMP, version = version + 1
WHERE id = ? AND status = 'QUEUED'
