UPDATE queue_limit SET concurrency = ?, rate = ?, period_millis = ?, source = ?, updated_at = UTC_TIMESTAMP(6)
WHERE queue = ? AND key_pattern = ?
