INSERT INTO queue_paused (queue, paused_at, paused_by) VALUES (?, UTC_TIMESTAMP(6), ?)
