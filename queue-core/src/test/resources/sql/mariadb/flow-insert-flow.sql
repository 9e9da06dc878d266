INSERT INTO queue_flow (queue, version) VALUES (?, ?) ON DUPLICATE KEY UPDATE queue = queue
