UPDATE queue_job SET awaited = 1
WHERE id = ? AND status IN ('WAITING', 'QUEUED', 'RUNNING') AND awaited = 0
