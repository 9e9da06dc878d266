UPDATE queue_schedule SET next_run_at = CAST(? AS DATETIME(6)), last_tick_at = COALESCE(CAST(? AS DATETIME(6)), last_tick_at), updated_at = UTC_TIMESTAMP(6)
WHERE name = ?
