INSERT INTO queue_instance (id, host, pid, version, queues, concurrency, busy_workers, beat_millis, started_at,
                last_seen)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)
