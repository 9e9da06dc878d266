UPDATE queue_schedule SET version = version + CASE WHEN orphaned = TRUE THEN 1 ELSE 0 END, orphaned = FALSE,
    declared_until = (UTC_TIMESTAMP(6) + INTERVAL (? * 1000) MICROSECOND)
WHERE name = ? AND (declared_until IS NULL OR declared_until < (UTC_TIMESTAMP(6) + INTERVAL (? * 1000) MICROSECOND))
