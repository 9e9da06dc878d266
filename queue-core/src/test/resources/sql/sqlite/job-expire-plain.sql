UPDATE queue_job SET status = 'CANCELLED', last_error = ?, finished_at = strftime('%Y-%m-%d %H:%M:%f', 'now'), updated_at = strftime('%Y-%m-%d %H:%M:%f', 'now'),
    version = version + 1
WHERE id = ? AND status = 'QUEUED' AND deadline <= strftime('%Y-%m-%d %H:%M:%f', 'now') AND settles = 0
