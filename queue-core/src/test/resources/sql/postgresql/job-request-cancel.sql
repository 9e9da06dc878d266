UPDATE queue_job SET cancel_requested_at = COALESCE(cancel_requested_at, now()), updated_at = now()
WHERE id = ? AND status = 'RUNNING'
