INSERT INTO queue_schedule (name, handler, queue, priority, max_attempts, expire_after_millis, concurrency_key,
                payload, cron, zone, every_millis, misfire, overlap, source, paused, orphaned,
                next_run_at, version, created_at, updated_at)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, CAST(? AS TIMESTAMP WITH TIME ZONE), 0, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)
