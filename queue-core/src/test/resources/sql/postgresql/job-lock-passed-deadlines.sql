SELECT id, queue, handler, deadline FROM queue_job
WHERE status = 'QUEUED' AND deadline IS NOT NULL AND deadline <= now()
LIMIT ?
FOR UPDATE SKIP LOCKED
