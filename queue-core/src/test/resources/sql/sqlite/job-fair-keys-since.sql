SELECT t.concurrency_key, MAX(t.id) AS last_id,
       MAX(CASE WHEN t.queue = ? AND t.status = 'QUEUED' THEN 1 ELSE 0 END) AS queued
FROM (SELECT concurrency_key, queue, status, id FROM queue_job WHERE id > ? ORDER BY id LIMIT 10000) t
GROUP BY t.concurrency_key
