UPDATE queue_schedule SET handler = ?, queue = ?, priority = ?, max_attempts = ?, expire_after_millis = ?,
    concurrency_key = ?, payload = ?, cron = ?, zone = ?, every_millis = ?, misfire = ?, overlap = ?,
    source = ?, orphaned = FALSE, next_run_at = COALESCE(CAST(? AS TIMESTAMP WITH TIME ZONE), next_run_at), version = version + 1,
    updated_at = CURRENT_TIMESTAMP
WHERE name = ? AND version = ?
