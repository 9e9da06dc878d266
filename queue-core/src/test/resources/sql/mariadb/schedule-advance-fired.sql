UPDATE queue_schedule SET next_run_at = CAST(? AS DATETIME(6)), last_tick_at = COALESCE(CAST(? AS DATETIME(6)), last_tick_at), last_job_id = ?, last_fired_at = UTC_TIMESTAMP(6), updated_at = UTC_TIMESTAMP(6)
WHERE name = ?
