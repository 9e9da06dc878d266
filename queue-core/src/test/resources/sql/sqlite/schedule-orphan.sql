UPDATE queue_schedule SET orphaned = TRUE, version = version + 1, updated_at = strftime('%Y-%m-%d %H:%M:%f', 'now') WHERE name = ?
