UPDATE queue_job SET status = 'QUEUED', attempts = 0, crashes = 0, cancel_requested_at = NULL, run_at = CURRENT_TIMESTAMP,
    finished_at = NULL, updated_at = CURRENT_TIMESTAMP, version = version + 1
WHERE id = ? AND status = 'FAILED'
