SELECT queue, status FROM queue_job WHERE id = ?
