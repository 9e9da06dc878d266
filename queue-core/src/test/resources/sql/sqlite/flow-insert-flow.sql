INSERT INTO queue_flow (queue, version) VALUES (?, ?)
