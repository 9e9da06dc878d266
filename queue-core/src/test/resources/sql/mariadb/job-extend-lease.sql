UPDATE queue_job SET lease_expires_at = (UTC_TIMESTAMP(6) + INTERVAL (? * 1000) MICROSECOND)
WHERE id = ? AND lease_token = ? AND status = 'RUNNING'
