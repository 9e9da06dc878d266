UPDATE queue_schedule SET orphaned = TRUE, version = version + 1, updated_at = now() WHERE name = ?
