INSERT INTO queue_count (queue, kind, jobs, oldest_due_ms, estimated) VALUES (?, ?, ?, ?, ?)
