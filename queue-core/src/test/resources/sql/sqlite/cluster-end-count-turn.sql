UPDATE queue_count_turn SET counted_by = ?, counted_at = strftime('%Y-%m-%d %H:%M:%f', 'now')
WHERE id = 1 AND turn = ? AND taken_by = ?
