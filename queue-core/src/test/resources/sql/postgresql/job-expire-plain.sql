UPDATE queue_job SET status = 'CANCELLED', last_error = ?, finished_at = now(), updated_at = now(),
    version = version + 1
WHERE id = ? AND status = 'QUEUED' AND deadline <= now() AND settles = 0
