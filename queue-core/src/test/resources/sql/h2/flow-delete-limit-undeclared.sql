DELETE FROM queue_limit
WHERE queue = ? AND key_pattern = ? AND source = ? AND (declared_until IS NULL OR declared_until < CURRENT_TIMESTAMP)
