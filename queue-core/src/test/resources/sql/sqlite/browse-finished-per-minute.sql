SELECT f.queue, f.status, f.minutes_ago, COUNT(*) AS jobs FROM (
    SELECT j.queue, j.status, CASE WHEN j.finished_at >= strftime('%Y-%m-%d %H:%M:%f', 'now', (CAST(? AS REAL) / 1000) || ' seconds') THEN 0 WHEN j.finished_at >= strftime('%Y-%m-%d %H:%M:%f', 'now', (CAST(? AS REAL) / 1000) || ' seconds') THEN 1 WHEN j.finished_at >= strftime('%Y-%m-%d %H:%M:%f', 'now', (CAST(? AS REAL) / 1000) || ' seconds') THEN 2 WHEN j.finished_at >= strftime('%Y-%m-%d %H:%M:%f', 'now', (CAST(? AS REAL) / 1000) || ' seconds') THEN 3 ELSE 4 END AS minutes_ago
    FROM queue_job j
    WHERE (j.status = 'SUCCEEDED' AND j.finished_at >= strftime('%Y-%m-%d %H:%M:%f', 'now', (CAST(? AS REAL) / 1000) || ' seconds'))
       OR (j.status = 'FAILED' AND j.finished_at >= strftime('%Y-%m-%d %H:%M:%f', 'now', (CAST(? AS REAL) / 1000) || ' seconds'))
       OR (j.status = 'CANCELLED' AND j.finished_at >= strftime('%Y-%m-%d %H:%M:%f', 'now', (CAST(? AS REAL) / 1000) || ' seconds'))) f
GROUP BY f.queue, f.status, f.minutes_ago
