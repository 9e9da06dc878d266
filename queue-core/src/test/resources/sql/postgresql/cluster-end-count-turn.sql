UPDATE queue_count_turn SET counted_by = ?, counted_at = now()
WHERE id = 1 AND turn = ? AND taken_by = ?
