UPDATE queue_job SET lease_expires_at = strftime('%Y-%m-%d %H:%M:%f', 'now', (CAST(? AS REAL) / 1000) || ' seconds')
WHERE id = ? AND lease_token = ? AND status = 'RUNNING'
