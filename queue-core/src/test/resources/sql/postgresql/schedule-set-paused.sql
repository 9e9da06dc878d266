UPDATE queue_schedule SET paused = ?, next_run_at = COALESCE(CAST(? AS timestamptz), next_run_at), version = version + 1,
    updated_at = now()
WHERE name = ? AND version = ?
