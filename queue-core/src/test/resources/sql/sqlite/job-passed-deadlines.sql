SELECT id, queue, handler, deadline FROM queue_job
WHERE status = 'QUEUED' AND deadline IS NOT NULL AND deadline <= strftime('%Y-%m-%d %H:%M:%f', 'now')
LIMIT ?
