UPDATE queue_schedule SET paused = ?, next_run_at = COALESCE(CAST(? AS TIMESTAMP WITH TIME ZONE), next_run_at), version = version + 1,
    updated_at = CURRENT_TIMESTAMP
WHERE name = ? AND version = ?
