INSERT INTO queue_job (queue, handler, payload, status, priority, run_at, max_attempts, unique_key, group_key,
                scheduled_for, deadline, created_at, updated_at, headers, concurrency_key)
VALUES (?, ?, CAST(? AS jsonb), 'QUEUED', ?, COALESCE(CAST(? AS timestamptz), (now() + CAST(? AS double precision) * interval '1 millisecond')), ?, ?, ?, CAST(? AS timestamptz), COALESCE(CAST(? AS timestamptz), (now() + CAST(? AS double precision) * interval '1 millisecond')), now(), now(), CAST(? AS jsonb), ?) ON CONFLICT DO NOTHING
