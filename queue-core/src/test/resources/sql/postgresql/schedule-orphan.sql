UPDATE queue_schedule SET orphaned = TRUE, version = version + 1, updated_at = now()
WHERE name = ? AND source = ? AND orphaned = FALSE AND (declared_until IS NULL OR declared_until < now())
