SELECT * FROM queue_batch WHERE callback_id = ?
