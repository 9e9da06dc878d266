UPDATE queue_schedule SET handler = ?, queue = ?, priority = ?, max_attempts = ?, expire_after_millis = ?,
    concurrency_key = ?, payload = ?, cron = ?, zone = ?, every_millis = ?, misfire = ?, overlap = ?,
    source = ?, orphaned = FALSE, next_run_at = COALESCE(CAST(? AS DATETIME(6)), next_run_at), version = version + 1,
    updated_at = UTC_TIMESTAMP(6)
WHERE name = ? AND version = ?
