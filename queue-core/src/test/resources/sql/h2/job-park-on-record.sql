UPDATE queue_job SET status = 'QUEUED', run_at = COALESCE((SELECT wake_at FROM queue_job_step WHERE job_id = ? AND kind = ? AND name = ?), CURRENT_TIMESTAMP), attempts = attempts - 1, deadline = NULL, updated_at = CURRENT_TIMESTAMP,
    lease_expires_at = NULL, version = version + 1
WHERE id = ? AND lease_token = ? AND status = 'RUNNING' AND cancel_requested_at IS NULL
