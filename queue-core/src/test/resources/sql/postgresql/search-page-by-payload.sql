SELECT j.id, j.queue, j.handler, j.status, j.priority, j.attempts, j.max_attempts, j.run_at,
    j.created_at, j.started_at, j.finished_at, j.unique_key, j.group_key, j.lease_owner,
    SUBSTR(j.last_error, 1, 200) AS error_head, CASE WHEN (j.status = 'QUEUED' AND j.run_at > now() AND EXISTS (SELECT 1 FROM queue_job_step s WHERE s.job_id = j.id AND s.kind IN ('sleep', 'signal') AND s.wake_at = j.run_at)) THEN 1 ELSE 0 END AS parked
FROM queue_job j
WHERE j.id < ?
  AND (j.payload #>> CAST(? AS text[])) = ?
ORDER BY j.id DESC
LIMIT ?
