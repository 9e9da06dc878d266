UPDATE queue_schedule SET handler = ?, queue = ?, priority = ?, max_attempts = ?, expire_after_millis = ?,
    concurrency_key = ?, payload = ?, cron = ?, zone = ?, every_millis = ?, misfire = ?, overlap = ?,
    source = ?, orphaned = FALSE, next_run_at = COALESCE(?, next_run_at), version = version + 1,
    updated_at = strftime('%Y-%m-%d %H:%M:%f', 'now')
WHERE name = ? AND version = ?
