UPDATE queue_job SET status = CASE WHEN waiting_for = 1 THEN 'QUEUED' ELSE status END,
    run_at = CASE WHEN waiting_for = 1 AND run_at < now() THEN now() ELSE run_at END,
    waiting_for = waiting_for - 1, updated_at = now(), version = version + 1
WHERE id = ? AND status = 'WAITING'
