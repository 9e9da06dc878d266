INSERT INTO queue_paused (queue, paused_at, paused_by) VALUES (?, strftime('%Y-%m-%d %H:%M:%f', 'now'), ?)
