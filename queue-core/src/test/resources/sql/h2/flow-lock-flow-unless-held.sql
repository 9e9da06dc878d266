SELECT version, window_start, window_starts, previous_starts, CURRENT_TIMESTAMP AS db_now, 1 AS read_committed FROM queue_flow
WHERE queue = ?
FOR UPDATE SKIP LOCKED
