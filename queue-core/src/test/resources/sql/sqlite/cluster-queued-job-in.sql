SELECT id FROM queue_job WHERE status = 'QUEUED' AND queue = ? LIMIT 1
