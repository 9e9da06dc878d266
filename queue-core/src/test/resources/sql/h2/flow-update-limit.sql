UPDATE queue_limit SET concurrency = ?, rate = ?, period_millis = ?, source = ?, updated_at = CURRENT_TIMESTAMP
WHERE queue = ? AND key_pattern = ?
