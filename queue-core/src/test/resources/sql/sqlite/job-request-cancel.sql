UPDATE queue_job SET cancel_requested_at = COALESCE(cancel_requested_at, strftime('%Y-%m-%d %H:%M:%f', 'now')), updated_at = strftime('%Y-%m-%d %H:%M:%f', 'now')
WHERE id = ? AND status = 'RUNNING'
