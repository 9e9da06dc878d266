SELECT concurrency_key, window_start, window_starts, previous_starts FROM queue_rate_window
WHERE queue = ?
