-- Through a backlog: the claim that starts where the last one ended.
WITH no_wait AS MATERIALIZED (SELECT set_config('synchronous_commit', 'off', true)),
picked AS MATERIALIZED (
    SELECT c.id FROM (
        SELECT * FROM (
            SELECT j.id FROM queue_job j
            WHERE j.status = 'QUEUED' AND j.queue = ? AND j.handler IN (?) AND j.run_at <= now()
              AND (j.group_key IS NULL OR NOT EXISTS (
                  SELECT 1 FROM queue_job g
                  WHERE g.group_key = j.group_key AND g.id <> j.id
                    AND (g.status = 'RUNNING' OR (g.status = 'QUEUED' AND g.id < j.id))))
              AND NOT EXISTS (SELECT 1 FROM queue_flow f WHERE f.queue = ?)
              AND j.priority > ?
            ORDER BY j.priority DESC, j.run_at, j.id
            LIMIT ?
            FOR UPDATE SKIP LOCKED) higher
        UNION ALL
        SELECT * FROM (
            SELECT j.id FROM queue_job j
            WHERE j.status = 'QUEUED' AND j.queue = ? AND j.handler IN (?) AND j.run_at <= now()
              AND (j.group_key IS NULL OR NOT EXISTS (
                  SELECT 1 FROM queue_job g
                  WHERE g.group_key = j.group_key AND g.id <> j.id
                    AND (g.status = 'RUNNING' OR (g.status = 'QUEUED' AND g.id < j.id))))
              AND NOT EXISTS (SELECT 1 FROM queue_flow f WHERE f.queue = ?)
              AND j.priority = ? AND (j.run_at, j.id) > (CAST(? AS timestamptz), ?)
            ORDER BY j.priority DESC, j.run_at, j.id
            LIMIT ?
            FOR UPDATE SKIP LOCKED) past_mark
        UNION ALL
        SELECT * FROM (
            SELECT j.id FROM queue_job j
            WHERE j.status = 'QUEUED' AND j.queue = ? AND j.handler IN (?) AND j.run_at <= now()
              AND (j.group_key IS NULL OR NOT EXISTS (
                  SELECT 1 FROM queue_job g
                  WHERE g.group_key = j.group_key AND g.id <> j.id
                    AND (g.status = 'RUNNING' OR (g.status = 'QUEUED' AND g.id < j.id))))
              AND NOT EXISTS (SELECT 1 FROM queue_flow f WHERE f.queue = ?)
              AND j.priority < ?
            ORDER BY j.priority DESC, j.run_at, j.id
            LIMIT ?
            FOR UPDATE SKIP LOCKED) lower) c
    LIMIT ?)
UPDATE queue_job j SET status = 'RUNNING', attempts = attempts + 1, lease_owner = ?, lease_token = ?,
    lease_expires_at = (now() + CAST(? AS double precision) * interval '1 millisecond'), started_at = now(), updated_at = now(), version = version + 1
FROM picked, no_wait WHERE j.id = picked.id
RETURNING j.*;
