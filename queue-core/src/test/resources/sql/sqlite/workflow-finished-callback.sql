SELECT callback_id FROM queue_batch WHERE id = ? AND remaining = 0 AND callback_id IS NOT NULL
