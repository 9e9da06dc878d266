UPDATE queue_job SET status = 'CANCELLED', last_error = ?, finished_at = UTC_TIMESTAMP(6), updated_at = UTC_TIMESTAMP(6),
    version = version + 1
WHERE id = ? AND status = 'QUEUED' AND deadline <= UTC_TIMESTAMP(6) AND settles = 0
