UPDATE queue_schedule SET orphaned = TRUE, version = version + 1, updated_at = strftime('%Y-%m-%d %H:%M:%f', 'now')
WHERE name = ? AND source = ? AND orphaned = FALSE AND (declared_until IS NULL OR declared_until < strftime('%Y-%m-%d %H:%M:%f', 'now'))
