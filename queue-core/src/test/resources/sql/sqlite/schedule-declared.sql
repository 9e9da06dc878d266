UPDATE queue_schedule SET version = version + CASE WHEN orphaned = TRUE THEN 1 ELSE 0 END, orphaned = FALSE,
    declared_until = strftime('%Y-%m-%d %H:%M:%f', 'now', (CAST(? AS REAL) / 1000) || ' seconds')
WHERE name = ? AND (declared_until IS NULL OR declared_until < strftime('%Y-%m-%d %H:%M:%f', 'now', (CAST(? AS REAL) / 1000) || ' seconds'))
