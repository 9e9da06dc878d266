DELETE FROM queue_rate_window WHERE queue = ? AND expires_at < ?
