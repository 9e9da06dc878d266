INSERT INTO queue_job (queue, handler, payload, status, priority, run_at, max_attempts, unique_key, group_key,
                scheduled_for, deadline, created_at, updated_at, headers, concurrency_key)
SELECT d.queue, d.handler, CAST(d.payload AS jsonb), 'QUEUED', d.priority,
       COALESCE(CAST(d.run_at AS timestamptz),
                now() + CAST(d.delay_millis AS double precision) * interval '1 millisecond'),
       d.max_attempts, d.unique_key, d.group_key, CAST(d.scheduled_for AS timestamptz),
       COALESCE(CAST(d.deadline AS timestamptz),
                now() + CAST(d.expire_millis AS double precision) * interval '1 millisecond'),
       now(), now(), CAST(d.headers AS jsonb), d.concurrency_key
FROM unnest(CAST(? AS text[]), CAST(? AS text[]), CAST(? AS text[]), CAST(? AS int[]), CAST(? AS text[]),
            CAST(? AS bigint[]), CAST(? AS int[]), CAST(? AS text[]), CAST(? AS text[]), CAST(? AS text[]),
            CAST(? AS text[]), CAST(? AS bigint[]), CAST(? AS text[]), CAST(? AS text[])) WITH ORDINALITY
    AS d(queue, handler, payload, priority, run_at, delay_millis, max_attempts, unique_key, group_key,
         scheduled_for, deadline, expire_millis, headers, concurrency_key, n)
ORDER BY d.n
ON CONFLICT DO NOTHING
RETURNING id
