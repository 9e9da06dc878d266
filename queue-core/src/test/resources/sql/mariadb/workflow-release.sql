UPDATE queue_job SET status = CASE WHEN waiting_for = 1 THEN 'QUEUED' ELSE status END,
    run_at = CASE WHEN waiting_for = 1 AND run_at < UTC_TIMESTAMP(6) THEN UTC_TIMESTAMP(6) ELSE run_at END,
    waiting_for = waiting_for - 1, updated_at = UTC_TIMESTAMP(6), version = version + 1
WHERE id = ? AND status = 'WAITING'
