UPDATE queue_schedule SET orphaned = TRUE, version = version + 1, updated_at = UTC_TIMESTAMP(6)
WHERE name = ? AND source = ? AND orphaned = FALSE AND (declared_until IS NULL OR declared_until < UTC_TIMESTAMP(6))
