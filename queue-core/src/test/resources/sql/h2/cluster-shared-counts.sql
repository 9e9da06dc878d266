SELECT t.counted_by, t.counted_at, t.taken_at, CURRENT_TIMESTAMP AS db_now,
    c.queue, c.kind, c.jobs, c.oldest_due_ms, c.estimated
FROM queue_count_turn t LEFT JOIN queue_count c ON 1 = 1
WHERE t.id = 1
