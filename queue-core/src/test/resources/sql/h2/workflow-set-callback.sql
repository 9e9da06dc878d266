UPDATE queue_batch SET callback_id = ? WHERE id = ?
