INSERT INTO queue_limit (queue, key_pattern, concurrency, rate, period_millis, source, created_at, updated_at)
VALUES (?, ?, ?, ?, ?, ?, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)
