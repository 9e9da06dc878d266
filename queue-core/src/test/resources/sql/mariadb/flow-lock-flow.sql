SELECT version, window_start, window_starts, previous_starts, UTC_TIMESTAMP(6) AS db_now, 1 AS read_committed FROM queue_flow
WHERE queue = ?
FOR UPDATE
