UPDATE queue_job SET status = 'QUEUED', attempts = 0, crashes = 0, cancel_requested_at = NULL, run_at = now(),
    finished_at = NULL, updated_at = now(), version = version + 1
WHERE id = ? AND status = 'FAILED'
