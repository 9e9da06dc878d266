UPDATE queue_schedule SET next_run_at = CAST(? AS timestamptz), last_tick_at = COALESCE(CAST(? AS timestamptz), last_tick_at), last_job_id = ?, last_fired_at = now(), updated_at = now()
WHERE name = ?
