INSERT INTO queue_instance (id, host, pid, version, queues, concurrency, busy_workers, beat_millis, started_at,
                last_seen)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, strftime('%Y-%m-%d %H:%M:%f', 'now'), strftime('%Y-%m-%d %H:%M:%f', 'now'))
