UPDATE queue_job SET status = 'QUEUED', attempts = 0, crashes = 0, cancel_requested_at = NULL, run_at = UTC_TIMESTAMP(6),
    finished_at = NULL, updated_at = UTC_TIMESTAMP(6), version = version + 1
WHERE id = ? AND status = 'FAILED'
