SELECT id, host, pid, version, queues, concurrency, busy_workers, beat_millis, started_at, last_seen,
       strftime('%Y-%m-%d %H:%M:%f', 'now') AS db_now
FROM queue_instance ORDER BY started_at, id
