SELECT l.*, f.version FROM queue_limit l JOIN queue_flow f ON f.queue = l.queue
WHERE l.queue = ?
