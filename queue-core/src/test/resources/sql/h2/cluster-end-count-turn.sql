UPDATE queue_count_turn SET counted_by = ?, counted_at = CURRENT_TIMESTAMP
WHERE id = 1 AND turn = ? AND taken_by = ?
