SELECT id, queue, handler, deadline FROM queue_job
WHERE queued_deadline <= UTC_TIMESTAMP(6)
LIMIT ?
