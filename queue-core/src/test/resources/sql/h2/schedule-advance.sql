UPDATE queue_schedule SET next_run_at = CAST(? AS TIMESTAMP WITH TIME ZONE), last_tick_at = COALESCE(CAST(? AS TIMESTAMP WITH TIME ZONE), last_tick_at), updated_at = CURRENT_TIMESTAMP
WHERE name = ?
