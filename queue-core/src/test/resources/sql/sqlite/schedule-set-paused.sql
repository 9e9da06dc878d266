UPDATE queue_schedule SET paused = ?, next_run_at = COALESCE(?, next_run_at), version = version + 1,
    updated_at = strftime('%Y-%m-%d %H:%M:%f', 'now')
WHERE name = ? AND version = ?
