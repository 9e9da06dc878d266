UPDATE queue_limit SET concurrency = ?, rate = ?, period_millis = ?, source = ?, updated_at = now()
WHERE queue = ? AND key_pattern = ?
