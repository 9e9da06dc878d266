INSERT INTO queue_rate_window (window_start, window_starts, previous_starts, expires_at, queue, concurrency_key)
VALUES (?, ?, ?, ?, ?, ?)
