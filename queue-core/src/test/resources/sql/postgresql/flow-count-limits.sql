SELECT COUNT(*) FROM queue_limit WHERE queue = ?
