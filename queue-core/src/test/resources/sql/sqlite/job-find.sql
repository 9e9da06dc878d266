SELECT * FROM queue_job WHERE id = ?
