INSERT INTO queue_job (queue, handler, payload, status, priority, run_at, max_attempts, unique_key, group_key,
                scheduled_for, deadline, created_at, updated_at, headers, concurrency_key)
VALUES (?, ?, ?, 'QUEUED', ?, COALESCE(CAST(? AS DATETIME(6)), (UTC_TIMESTAMP(6) + INTERVAL (? * 1000) MICROSECOND)), ?, ?, ?, CAST(? AS DATETIME(6)), COALESCE(CAST(? AS DATETIME(6)), (UTC_TIMESTAMP(6) + INTERVAL (? * 1000) MICROSECOND)), UTC_TIMESTAMP(6), UTC_TIMESTAMP(6), ?, ?),
       (?, ?, ?, 'QUEUED', ?, COALESCE(CAST(? AS DATETIME(6)), (UTC_TIMESTAMP(6) + INTERVAL (? * 1000) MICROSECOND)), ?, ?, ?, CAST(? AS DATETIME(6)), COALESCE(CAST(? AS DATETIME(6)), (UTC_TIMESTAMP(6) + INTERVAL (? * 1000) MICROSECOND)), UTC_TIMESTAMP(6), UTC_TIMESTAMP(6), ?, ?),
       (?, ?, ?, 'QUEUED', ?, COALESCE(CAST(? AS DATETIME(6)), (UTC_TIMESTAMP(6) + INTERVAL (? * 1000) MICROSECOND)), ?, ?, ?, CAST(? AS DATETIME(6)), COALESCE(CAST(? AS DATETIME(6)), (UTC_TIMESTAMP(6) + INTERVAL (? * 1000) MICROSECOND)), UTC_TIMESTAMP(6), UTC_TIMESTAMP(6), ?, ?)
RETURNING id
