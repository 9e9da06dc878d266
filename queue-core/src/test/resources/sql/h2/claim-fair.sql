-- A fair queue's claim (docs/flow-control.md#fair-turns), after 1. and 2. above:

-- 3. Whether a job is due above the priority this instance served last; if so (or at first), the highest priority with a job due (then each lower one, while there is room).
SELECT j.priority FROM queue_job j
WHERE j.status = 'QUEUED' AND j.queue = ? AND j.handler IN (?) AND j.run_at <= CAST(? AS TIMESTAMP WITH TIME ZONE)
      AND (j.group_key IS NULL OR NOT EXISTS (
          SELECT 1 FROM queue_job g
          WHERE g.group_key = j.group_key AND g.id <> j.id
            AND (g.status = 'RUNNING' OR (g.status = 'QUEUED' AND g.id < j.id))))
  AND j.priority > ?
LIMIT 1;
SELECT j.priority FROM queue_job j
WHERE j.status = 'QUEUED' AND j.queue = ? AND j.handler IN (?) AND j.run_at <= CAST(? AS TIMESTAMP WITH TIME ZONE)
      AND (j.group_key IS NULL OR NOT EXISTS (
          SELECT 1 FROM queue_job g
          WHERE g.group_key = j.group_key AND g.id <> j.id
            AND (g.status = 'RUNNING' OR (g.status = 'QUEUED' AND g.id < j.id))))
ORDER BY j.priority DESC, j.run_at, j.id
LIMIT 1;
SELECT j.priority FROM queue_job j
WHERE j.status = 'QUEUED' AND j.queue = ? AND j.handler IN (?) AND j.run_at <= CAST(? AS TIMESTAMP WITH TIME ZONE)
      AND (j.group_key IS NULL OR NOT EXISTS (
          SELECT 1 FROM queue_job g
          WHERE g.group_key = j.group_key AND g.id <> j.id
            AND (g.status = 'RUNNING' OR (g.status = 'QUEUED' AND g.id < j.id))))
  AND j.priority < ?
ORDER BY j.priority DESC, j.run_at, j.id
LIMIT 1;

-- 4. Every 100 ms per instance: the keys with jobs queued at that priority, key to key along the fair index, and those in the turns; the new ones enter the turns.
WITH RECURSIVE k (fair_key) AS (
    SELECT MIN(concurrency_key) FROM queue_job
    WHERE status = 'QUEUED' AND queue = ? AND priority = ?
  UNION ALL
    SELECT (SELECT MIN(j.concurrency_key) FROM queue_job j
            WHERE j.status = 'QUEUED' AND j.queue = ? AND j.priority = ? AND j.concurrency_key > k.fair_key)
    FROM k WHERE k.fair_key IS NOT NULL
)
SELECT NULL AS fair_key FROM (
    SELECT 1 AS one FROM queue_job
    WHERE status = 'QUEUED' AND queue = ? AND priority = ? AND concurrency_key IS NULL
    LIMIT 1) n
UNION ALL
SELECT fair_key FROM (SELECT fair_key FROM k WHERE fair_key IS NOT NULL LIMIT 999) fk;
SELECT fair_key, pass, window_start, window_starts, previous_starts FROM queue_fair_key
WHERE queue = ?;
INSERT INTO queue_fair_key (pass, window_start, window_starts, previous_starts, queue, fair_key)
VALUES (?, ?, ?, ?, ?, ?);

-- 5. The keys in the turns (ordered by pass here).
SELECT fair_key, pass, window_start, window_starts, previous_starts FROM queue_fair_key
WHERE queue = ?;

-- 6. The first due jobs of the keys whose turn it is, each past where this instance last took its jobs, in an arm of its own.
SELECT * FROM (SELECT j.* FROM queue_job j
    WHERE j.status = 'QUEUED' AND j.queue = ? AND j.handler IN (?) AND j.run_at <= CAST(? AS TIMESTAMP WITH TIME ZONE)
      AND (j.group_key IS NULL OR NOT EXISTS (
          SELECT 1 FROM queue_job g
          WHERE g.group_key = j.group_key AND g.id <> j.id
            AND (g.status = 'RUNNING' OR (g.status = 'QUEUED' AND g.id < j.id))))
      AND j.priority = ? AND j.concurrency_key IS NULL
      AND j.run_at >= CAST(? AS TIMESTAMP WITH TIME ZONE) AND (j.run_at > CAST(? AS TIMESTAMP WITH TIME ZONE) OR j.id > ?)
    ORDER BY j.run_at, j.id
    LIMIT ?) h0
UNION ALL
SELECT * FROM (SELECT j.* FROM queue_job j
    WHERE j.status = 'QUEUED' AND j.queue = ? AND j.handler IN (?) AND j.run_at <= CAST(? AS TIMESTAMP WITH TIME ZONE)
      AND (j.group_key IS NULL OR NOT EXISTS (
          SELECT 1 FROM queue_job g
          WHERE g.group_key = j.group_key AND g.id <> j.id
            AND (g.status = 'RUNNING' OR (g.status = 'QUEUED' AND g.id < j.id))))
      AND j.priority = ? AND j.concurrency_key = ?
      AND j.run_at >= CAST(? AS TIMESTAMP WITH TIME ZONE) AND (j.run_at > CAST(? AS TIMESTAMP WITH TIME ZONE) OR j.id > ?)
    ORDER BY j.run_at, j.id
    LIMIT ?) h1
UNION ALL
SELECT * FROM (SELECT j.* FROM queue_job j
    WHERE j.status = 'QUEUED' AND j.queue = ? AND j.handler IN (?) AND j.run_at <= CAST(? AS TIMESTAMP WITH TIME ZONE)
      AND (j.group_key IS NULL OR NOT EXISTS (
          SELECT 1 FROM queue_job g
          WHERE g.group_key = j.group_key AND g.id <> j.id
            AND (g.status = 'RUNNING' OR (g.status = 'QUEUED' AND g.id < j.id))))
      AND j.priority = ? AND j.concurrency_key = ?
      AND j.run_at >= CAST(? AS TIMESTAMP WITH TIME ZONE) AND (j.run_at > CAST(? AS TIMESTAMP WITH TIME ZONE) OR j.id > ?)
    ORDER BY j.run_at, j.id
    LIMIT ?) h2;

-- 7. Claim the admitted jobs as a limited claim does; then write the turns and the keys that leave them.
UPDATE queue_fair_key SET pass = ?, window_start = ?, window_starts = ?, previous_starts = ?
WHERE queue = ? AND fair_key = ?;
DELETE FROM queue_fair_key WHERE queue = ? AND fair_key = ?;
