DELETE FROM queue_rate_window WHERE queue = ?
