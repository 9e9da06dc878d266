-- 1. Lock the queue's flow row: claims of one queue take turns.
SELECT version, window_start, window_starts, previous_starts, now() AS db_now, set_config('synchronous_commit', 'off', true) AS no_wait,
    set_config('enable_seqscan', 'off', true) AS index_only, set_config('enable_bitmapscan', 'off', true) AS no_bitmaps,
    current_setting('transaction_isolation') = 'read committed' AS read_committed FROM queue_flow
WHERE queue = ?
FOR UPDATE;

-- 2. Where a key may be full: count the running jobs by key.
SELECT concurrency_key, COUNT(*) AS jobs FROM queue_job
WHERE queue = ? AND status = 'RUNNING'
GROUP BY concurrency_key;

-- 3. Read due jobs in run order, unlocked (the first page counts the queue's running jobs).
SELECT j.*,
    (SELECT COUNT(*) FROM queue_job r WHERE r.queue = ? AND r.status = 'RUNNING') AS queue_running FROM queue_job j
WHERE j.status = 'QUEUED' AND j.queue = ? AND j.handler IN (?) AND j.run_at <= CAST(? AS timestamptz)
      AND (j.group_key IS NULL OR NOT EXISTS (
          SELECT 1 FROM queue_job g
          WHERE g.group_key = j.group_key AND g.id <> j.id
            AND (g.status = 'RUNNING' OR (g.status = 'QUEUED' AND g.id < j.id))))
ORDER BY j.priority DESC, j.run_at, j.id
LIMIT ?;

-- 4. Read the rate windows of the candidates' keys.
SELECT concurrency_key, window_start, window_starts, previous_starts FROM queue_rate_window
WHERE queue = ? AND concurrency_key IN (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?);

-- 5. Claim the admitted jobs by id, passing over locked rows.
WITH locked AS MATERIALIZED (
    SELECT j.id FROM queue_job j
    WHERE j.id IN (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) AND (j.status = 'QUEUED') IS TRUE
    FOR UPDATE OF j SKIP LOCKED)
UPDATE queue_job j SET status = 'RUNNING', attempts = attempts + 1, lease_owner = ?, lease_token = ?,
    lease_expires_at = (now() + CAST(? AS double precision) * interval '1 millisecond'), started_at = CAST(? AS timestamptz), updated_at = now(), version = version + 1
FROM locked WHERE j.id = locked.id
RETURNING j.id;

-- Then: count the starts in the queue's rate window.
UPDATE queue_flow SET window_start = ?, window_starts = ?, previous_starts = ?
WHERE queue = ?;

-- and in the keys' windows, in one statement.
INSERT INTO queue_rate_window (concurrency_key, window_start, window_starts, previous_starts, expires_at, queue)
SELECT d.concurrency_key, d.window_start, d.window_starts, d.previous_starts, d.expires_at, CAST(? AS text)
FROM unnest(CAST(? AS text[]), CAST(? AS bigint[]), CAST(? AS int[]), CAST(? AS int[]), CAST(? AS bigint[]))
    AS d(concurrency_key, window_start, window_starts, previous_starts, expires_at)
ON CONFLICT (queue, concurrency_key) DO UPDATE SET window_start = excluded.window_start,
    window_starts = excluded.window_starts, previous_starts = excluded.previous_starts,
    expires_at = excluded.expires_at;
