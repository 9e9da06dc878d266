UPDATE queue_job SET cancel_requested_at = COALESCE(cancel_requested_at, UTC_TIMESTAMP(6)), updated_at = UTC_TIMESTAMP(6)
WHERE id = ? AND status = 'RUNNING'
