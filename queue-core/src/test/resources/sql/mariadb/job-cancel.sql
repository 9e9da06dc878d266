UPDATE queue_job SET status = 'CANCELLED', finished_at = UTC_TIMESTAMP(6), updated_at = UTC_TIMESTAMP(6), version = version + 1
WHERE id = ? AND status IN ('QUEUED', 'WAITING')
