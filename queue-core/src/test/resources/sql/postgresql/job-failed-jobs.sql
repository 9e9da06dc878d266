SELECT j.id FROM queue_job j
WHERE j.status = 'FAILED' AND j.queue = COALESCE(?, j.queue) AND j.handler = COALESCE(?, j.handler)
  AND (j.unique_key IS NULL OR NOT EXISTS (
      SELECT 1 FROM queue_job u
      WHERE u.unique_key = j.unique_key AND u.status IN ('WAITING', 'QUEUED', 'RUNNING')))
ORDER BY j.id
LIMIT ?
