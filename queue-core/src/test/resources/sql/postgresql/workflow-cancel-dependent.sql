UPDATE queue_job SET status = 'CANCELLED', last_error = ?, finished_at = now(), updated_at = now(),
    waiting_for = waiting_for - 1, version = version + 1
WHERE id = ? AND status = 'WAITING'
