INSERT INTO queue_limit (queue, key_pattern, concurrency, rate, period_millis, source, created_at, updated_at)
VALUES (?, ?, ?, ?, ?, ?, strftime('%Y-%m-%d %H:%M:%f', 'now'), strftime('%Y-%m-%d %H:%M:%f', 'now'))
