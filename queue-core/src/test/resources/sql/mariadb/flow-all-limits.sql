SELECT l.*, f.version FROM queue_limit l JOIN queue_flow f ON f.queue = l.queue
ORDER BY l.queue, l.key_pattern
