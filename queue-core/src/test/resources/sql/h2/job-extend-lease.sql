UPDATE queue_job SET lease_expires_at = DATEADD(MILLISECOND, CAST(? AS BIGINT), CURRENT_TIMESTAMP)
WHERE id = ? AND lease_token = ? AND status = 'RUNNING'
