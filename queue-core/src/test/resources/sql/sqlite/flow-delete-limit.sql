DELETE FROM queue_limit WHERE queue = ? AND key_pattern = ?
