UPDATE queue_job SET status = 'CANCELLED', finished_at = now(), updated_at = now(), version = version + 1
WHERE id = ? AND status IN ('QUEUED', 'WAITING')
