UPDATE queue_count_turn SET turn = turn + 1, taken_by = ?, taken_at = strftime('%Y-%m-%d %H:%M:%f', 'now')
WHERE id = 1 AND taken_at < strftime('%Y-%m-%d %H:%M:%f', 'now', (CAST(? AS REAL) / 1000) || ' seconds') AND (counted_at >= taken_at OR taken_at < strftime('%Y-%m-%d %H:%M:%f', 'now', (CAST(? AS REAL) / 1000) || ' seconds'))
