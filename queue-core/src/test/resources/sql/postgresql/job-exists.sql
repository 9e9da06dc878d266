SELECT 1 FROM queue_job WHERE id = ?
