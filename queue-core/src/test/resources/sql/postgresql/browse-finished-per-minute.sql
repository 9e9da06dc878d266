SELECT f.queue, f.status, f.minutes_ago, COUNT(*) AS jobs FROM (
    SELECT j.queue, j.status, CASE WHEN j.finished_at >= (now() + CAST(? AS double precision) * interval '1 millisecond') THEN 0 WHEN j.finished_at >= (now() + CAST(? AS double precision) * interval '1 millisecond') THEN 1 WHEN j.finished_at >= (now() + CAST(? AS double precision) * interval '1 millisecond') THEN 2 WHEN j.finished_at >= (now() + CAST(? AS double precision) * interval '1 millisecond') THEN 3 ELSE 4 END AS minutes_ago
    FROM queue_job j
    WHERE (j.status = 'SUCCEEDED' AND j.finished_at >= (now() + CAST(? AS double precision) * interval '1 millisecond'))
       OR (j.status = 'FAILED' AND j.finished_at >= (now() + CAST(? AS double precision) * interval '1 millisecond'))
       OR (j.status = 'CANCELLED' AND j.finished_at >= (now() + CAST(? AS double precision) * interval '1 millisecond'))) f
GROUP BY f.queue, f.status, f.minutes_ago
