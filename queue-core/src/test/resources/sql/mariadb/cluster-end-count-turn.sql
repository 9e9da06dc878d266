UPDATE queue_count_turn SET counted_by = ?, counted_at = UTC_TIMESTAMP(6)
WHERE id = 1 AND turn = ? AND taken_by = ?
