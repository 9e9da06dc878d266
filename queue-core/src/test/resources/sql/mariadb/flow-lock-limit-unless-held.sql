SELECT queue FROM queue_limit WHERE queue = ? AND key_pattern = ?
FOR UPDATE SKIP LOCKED
