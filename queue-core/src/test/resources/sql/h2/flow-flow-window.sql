SELECT window_start, window_starts, previous_starts FROM queue_flow WHERE queue = ?
