-- 1. Lock the due jobs, passing over locked rows.
SELECT j.*, UTC_TIMESTAMP(6) AS claimed_at FROM queue_job j
WHERE j.status = 'QUEUED' AND j.queue = ? AND j.handler IN (?) AND j.run_at <= UTC_TIMESTAMP(6)
      AND (j.group_key IS NULL OR NOT EXISTS (
          SELECT 1 FROM queue_job g
          WHERE g.group_key = j.group_key AND g.id <> j.id
            AND (g.status = 'RUNNING' OR (g.status = 'QUEUED' AND g.id < j.id))))
      AND NOT EXISTS (SELECT 1 FROM queue_flow f WHERE f.queue = ?)
ORDER BY j.priority DESC, j.run_at, j.id
LIMIT ?
FOR UPDATE SKIP LOCKED;

-- 2. Claim those locked, by id.
UPDATE queue_job SET status = 'RUNNING', attempts = attempts + 1, lease_owner = ?, lease_token = ?,
    lease_expires_at = (UTC_TIMESTAMP(6) + INTERVAL (? * 1000) MICROSECOND), started_at = UTC_TIMESTAMP(6), updated_at = UTC_TIMESTAMP(6), version = version + 1
WHERE id IN (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?);
