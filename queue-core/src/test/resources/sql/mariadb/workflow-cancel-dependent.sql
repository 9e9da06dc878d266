UPDATE queue_job SET status = 'CANCELLED', last_error = ?, finished_at = UTC_TIMESTAMP(6), updated_at = UTC_TIMESTAMP(6),
    waiting_for = waiting_for - 1, version = version + 1
WHERE id = ? AND status = 'WAITING'
