UPDATE queue_job SET status = 'CANCELLED', finished_at = strftime('%Y-%m-%d %H:%M:%f', 'now'), updated_at = strftime('%Y-%m-%d %H:%M:%f', 'now'), version = version + 1
WHERE id = ? AND status IN ('QUEUED', 'WAITING')
