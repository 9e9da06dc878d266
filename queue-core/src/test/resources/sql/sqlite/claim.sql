-- One statement: lock the due jobs (passing over locked rows), claim them, return them.
WITH picked AS MATERIALIZED (
    SELECT j.id FROM queue_job j
    WHERE j.status = 'QUEUED' AND j.queue = ? AND j.handler IN (?) AND j.run_at <= strftime('%Y-%m-%d %H:%M:%f', 'now')
      AND (j.group_key IS NULL OR NOT EXISTS (
          SELECT 1 FROM queue_job g
          WHERE g.group_key = j.group_key AND g.id <> j.id
            AND (g.status = 'RUNNING' OR (g.status = 'QUEUED' AND g.id < j.id))))
      AND NOT EXISTS (SELECT 1 FROM queue_flow f WHERE f.queue = ?)
    ORDER BY j.priority DESC, j.run_at, j.id
    LIMIT ?)
UPDATE queue_job SET status = 'RUNNING', attempts = attempts + 1, lease_owner = ?, lease_token = ?,
    lease_expires_at = strftime('%Y-%m-%d %H:%M:%f', 'now', (CAST(? AS REAL) / 1000) || ' seconds'), started_at = strftime('%Y-%m-%d %H:%M:%f', 'now'), updated_at = strftime('%Y-%m-%d %H:%M:%f', 'now'), version = version + 1
WHERE id IN (SELECT id FROM picked)
RETURNING *;
