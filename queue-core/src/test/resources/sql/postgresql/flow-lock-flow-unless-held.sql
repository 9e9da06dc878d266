SELECT version, window_start, window_starts, previous_starts, now() AS db_now, set_config('synchronous_commit', 'off', true) AS no_wait,
    set_config('enable_seqscan', 'off', true) AS index_only, set_config('enable_bitmapscan', 'off', true) AS no_bitmaps,
    current_setting('transaction_isolation') = 'read committed' AS read_committed FROM queue_flow
WHERE queue = ?
FOR UPDATE SKIP LOCKED
