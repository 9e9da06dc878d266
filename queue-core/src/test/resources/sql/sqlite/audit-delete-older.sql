DELETE FROM queue_audit WHERE acted_at < strftime('%Y-%m-%d %H:%M:%f', 'now', (CAST(? AS REAL) / 1000) || ' seconds')
