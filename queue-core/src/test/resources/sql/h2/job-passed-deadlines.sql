SELECT id, queue, handler, deadline FROM queue_job
WHERE queued_deadline <= CURRENT_TIMESTAMP
LIMIT ?
