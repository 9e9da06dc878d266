UPDATE queue_fairness SET declared_until = strftime('%Y-%m-%d %H:%M:%f', 'now', (CAST(? AS REAL) / 1000) || ' seconds')
WHERE queue = ? AND key_pattern = '' AND (declared_until IS NULL OR declared_until < strftime('%Y-%m-%d %H:%M:%f', 'now', (CAST(? AS REAL) / 1000) || ' seconds'))
