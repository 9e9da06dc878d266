UPDATE queue_job SET status = CASE WHEN cancel_requested_at IS NULL THEN 'QUEUED' ELSE 'CANCELLED' END,
    finished_at = CASE WHEN cancel_requested_at IS NULL THEN NULL ELSE strftime('%Y-%m-%d %H:%M:%f', 'now') END,
    attempts = attempts - 1, started_at = NULL, last_error = ?, updated_at = strftime('%Y-%m-%d %H:%M:%f', 'now'),
    lease_token = NULL, lease_expires_at = NULL, version = version + 1
WHERE id = ? AND lease_token = ? AND status = 'RUNNING'
