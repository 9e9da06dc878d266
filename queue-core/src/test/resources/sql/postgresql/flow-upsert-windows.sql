INSERT INTO queue_rate_window (concurrency_key, window_start, window_starts, previous_starts, expires_at, queue)
SELECT d.concurrency_key, d.window_start, d.window_starts, d.previous_starts, d.expires_at, CAST(? AS text)
FROM unnest(CAST(? AS text[]), CAST(? AS bigint[]), CAST(? AS int[]), CAST(? AS int[]), CAST(? AS bigint[]))
    AS d(concurrency_key, window_start, window_starts, previous_starts, expires_at)
ON CONFLICT (queue, concurrency_key) DO UPDATE SET window_start = excluded.window_start,
    window_starts = excluded.window_starts, previous_starts = excluded.previous_starts,
    expires_at = excluded.expires_at
