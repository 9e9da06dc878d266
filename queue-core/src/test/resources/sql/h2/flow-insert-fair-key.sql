INSERT INTO queue_fair_key (pass, window_start, window_starts, previous_starts, queue, fair_key)
VALUES (?, ?, ?, ?, ?, ?)
