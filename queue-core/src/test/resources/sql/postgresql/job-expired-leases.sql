SELECT id, queue, handler, lease_owner, lease_token, attempts, max_attempts, crashes,
    cancel_requested_at,
    EXISTS (SELECT 1 FROM queue_lease_extension g WHERE g.job_id = id AND g.token = lease_token AND g.stopped = TRUE) AS stopped
FROM queue_job
WHERE status = 'RUNNING' AND lease_expires_at < now() AND NOT EXISTS (SELECT 1 FROM queue_lease_extension x WHERE x.job_id = id AND x.token = lease_token AND x.expires_at >= now())
ORDER BY lease_expires_at
LIMIT ?
