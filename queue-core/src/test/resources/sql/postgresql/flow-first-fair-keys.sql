SELECT fair_key, pass, window_start, window_starts, previous_starts FROM queue_fair_key
WHERE queue = ?
ORDER BY pass, fair_key
LIMIT ?
