INSERT INTO queue_job (queue, handler, payload, status, priority, run_at, max_attempts, unique_key, group_key,
                scheduled_for, deadline, created_at, updated_at, headers, concurrency_key)
VALUES (?, ?, ?, 'QUEUED', ?, COALESCE(?, strftime('%Y-%m-%d %H:%M:%f', 'now', (CAST(? AS REAL) / 1000) || ' seconds')), ?, ?, ?, ?, COALESCE(?, strftime('%Y-%m-%d %H:%M:%f', 'now', (CAST(? AS REAL) / 1000) || ' seconds')), strftime('%Y-%m-%d %H:%M:%f', 'now'), strftime('%Y-%m-%d %H:%M:%f', 'now'), ?, ?)
