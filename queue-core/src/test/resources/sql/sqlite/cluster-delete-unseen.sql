DELETE FROM queue_instance WHERE last_seen < strftime('%Y-%m-%d %H:%M:%f', 'now', (CAST(? AS REAL) / 1000) || ' seconds')
