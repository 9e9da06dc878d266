UPDATE queue_fair_key SET pass = ?, window_start = ?, window_starts = ?, previous_starts = ?
WHERE queue = ? AND fair_key = ?
