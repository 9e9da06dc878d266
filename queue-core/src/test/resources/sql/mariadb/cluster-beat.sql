UPDATE queue_instance SET host = ?, pid = ?, version = ?, queues = ?, concurrency = ?, busy_workers = ?,
    beat_millis = ?, last_seen = UTC_TIMESTAMP(6)
WHERE id = ?
