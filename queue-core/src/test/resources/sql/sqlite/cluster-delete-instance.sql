DELETE FROM queue_instance WHERE id = ?
