SELECT * FROM queue_batch WHERE id = ?
