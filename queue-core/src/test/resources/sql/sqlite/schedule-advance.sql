UPDATE queue_schedule SET next_run_at = ?, last_tick_at = COALESCE(?, last_tick_at), updated_at = strftime('%Y-%m-%d %H:%M:%f', 'now')
WHERE name = ?
