UPDATE queue_schedule SET orphaned = TRUE, version = version + 1, updated_at = UTC_TIMESTAMP(6) WHERE name = ?
