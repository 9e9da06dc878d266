UPDATE queue_schedule SET version = version + CASE WHEN orphaned = TRUE THEN 1 ELSE 0 END, orphaned = FALSE,
    declared_until = DATEADD(MILLISECOND, CAST(? AS BIGINT), CURRENT_TIMESTAMP)
WHERE name = ? AND (declared_until IS NULL OR declared_until < DATEADD(MILLISECOND, CAST(? AS BIGINT), CURRENT_TIMESTAMP))
