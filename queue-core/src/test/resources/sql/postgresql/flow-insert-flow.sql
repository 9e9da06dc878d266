INSERT INTO queue_flow (queue, version) VALUES (?, ?) ON CONFLICT DO NOTHING
