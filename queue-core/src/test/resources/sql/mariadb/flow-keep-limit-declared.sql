UPDATE queue_limit SET declared_until = (UTC_TIMESTAMP(6) + INTERVAL (? * 1000) MICROSECOND)
WHERE queue = ? AND key_pattern = ? AND (declared_until IS NULL OR declared_until < (UTC_TIMESTAMP(6) + INTERVAL (? * 1000) MICROSECOND))
