SELECT version, window_start, window_starts, previous_starts, strftime('%Y-%m-%d %H:%M:%f', 'now') AS db_now, 1 AS read_committed FROM queue_flow
WHERE queue = ?
