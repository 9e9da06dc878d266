UPDATE queue_job SET status = 'QUEUED', attempts = 0, crashes = 0, cancel_requested_at = NULL, run_at = strftime('%Y-%m-%d %H:%M:%f', 'now'),
    finished_at = NULL, updated_at = strftime('%Y-%m-%d %H:%M:%f', 'now'), version = version + 1
WHERE id = ? AND status = 'FAILED'
