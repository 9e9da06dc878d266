UPDATE queue_job SET status = 'QUEUED', run_at = (UTC_TIMESTAMP(6) + INTERVAL (? * 1000) MICROSECOND), attempts = attempts - 1, deadline = NULL, updated_at = UTC_TIMESTAMP(6),
    lease_expires_at = NULL, version = version + 1
WHERE id = ? AND lease_token = ? AND status = 'RUNNING' AND cancel_requested_at IS NULL
