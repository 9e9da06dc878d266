SELECT turn FROM queue_count_turn WHERE id = 1 AND taken_by = ?
