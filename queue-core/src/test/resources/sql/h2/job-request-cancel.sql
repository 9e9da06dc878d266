UPDATE queue_job SET cancel_requested_at = COALESCE(cancel_requested_at, CURRENT_TIMESTAMP), updated_at = CURRENT_TIMESTAMP
WHERE id = ? AND status = 'RUNNING'
