UPDATE queue_job SET status = 'CANCELLED', finished_at = CURRENT_TIMESTAMP, updated_at = CURRENT_TIMESTAMP, version = version + 1
WHERE id = ? AND status IN ('QUEUED', 'WAITING') AND settles = 0
