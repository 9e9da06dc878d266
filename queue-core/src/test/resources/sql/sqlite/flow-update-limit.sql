UPDATE queue_limit SET concurrency = ?, rate = ?, period_millis = ?, source = ?, updated_at = strftime('%Y-%m-%d %H:%M:%f', 'now')
WHERE queue = ? AND key_pattern = ?
