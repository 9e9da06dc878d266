UPDATE queue_rate_window SET window_start = ?, window_starts = ?, previous_starts = ?, expires_at = ?
WHERE queue = ? AND concurrency_key = ?
