INSERT INTO queue_paused (queue, paused_at, paused_by) VALUES (?, now(), ?)
