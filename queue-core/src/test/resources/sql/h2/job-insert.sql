INSERT INTO queue_job (queue, handler, payload, status, priority, run_at, max_attempts, unique_key, group_key,
                scheduled_for, deadline, created_at, updated_at, headers, concurrency_key)
VALUES (?, ?, ?, 'QUEUED', ?, COALESCE(CAST(? AS TIMESTAMP WITH TIME ZONE), DATEADD(MILLISECOND, CAST(? AS BIGINT), CURRENT_TIMESTAMP)), ?, ?, ?, CAST(? AS TIMESTAMP WITH TIME ZONE), COALESCE(CAST(? AS TIMESTAMP WITH TIME ZONE), DATEADD(MILLISECOND, CAST(? AS BIGINT), CURRENT_TIMESTAMP)), CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, ?, ?)
