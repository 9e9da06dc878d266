INSERT INTO queue_job (queue, handler, payload, status, priority, run_at, max_attempts, created_at, updated_at)
SELECT d.queue, d.handler, CAST(d.payload AS jsonb), 'QUEUED', d.priority, now(), d.max_attempts,
       now(), now()
FROM unnest(CAST(? AS text[]), CAST(? AS text[]), CAST(? AS text[]), CAST(? AS int[]),
            CAST(? AS int[])) WITH ORDINALITY AS d(queue, handler, payload, priority, max_attempts, n)
ORDER BY d.n
RETURNING id
