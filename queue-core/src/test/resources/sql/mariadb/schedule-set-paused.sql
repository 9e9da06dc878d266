UPDATE queue_schedule SET paused = ?, next_run_at = COALESCE(CAST(? AS DATETIME(6)), next_run_at), version = version + 1,
    updated_at = UTC_TIMESTAMP(6)
WHERE name = ? AND version = ?
