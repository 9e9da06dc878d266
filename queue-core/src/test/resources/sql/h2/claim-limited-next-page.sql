SELECT j.* FROM queue_job j
WHERE j.status = 'QUEUED' AND j.queue = ? AND j.handler IN (?) AND j.run_at <= CAST(? AS TIMESTAMP WITH TIME ZONE)
      AND (j.group_key IS NULL OR NOT EXISTS (
          SELECT 1 FROM queue_job g
          WHERE g.group_key = j.group_key AND g.id <> j.id
            AND (g.status = 'RUNNING' OR (g.status = 'QUEUED' AND g.id < j.id))))
  AND (j.concurrency_key IS NULL OR j.concurrency_key NOT IN (?, ?, ?, ?, ?, ?, ?, ?))
AND (j.priority < ? OR (j.priority = ? AND (j.run_at > CAST(? AS TIMESTAMP WITH TIME ZONE) OR (j.run_at = CAST(? AS TIMESTAMP WITH TIME ZONE) AND j.id > ?))))
ORDER BY j.priority DESC, j.run_at, j.id
LIMIT ?
