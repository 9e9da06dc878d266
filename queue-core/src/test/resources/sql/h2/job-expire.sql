UPDATE queue_job SET status = 'CANCELLED', last_error = ?, finished_at = CURRENT_TIMESTAMP, updated_at = CURRENT_TIMESTAMP,
    version = version + 1
WHERE id = ? AND status = 'QUEUED' AND deadline <= CURRENT_TIMESTAMP
