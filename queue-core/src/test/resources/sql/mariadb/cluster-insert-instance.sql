INSERT INTO queue_instance (id, host, pid, version, queues, concurrency, busy_workers, beat_millis, started_at,
                last_seen)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, UTC_TIMESTAMP(6), UTC_TIMESTAMP(6))
