UPDATE queue_job SET run_at = CURRENT_TIMESTAMP, updated_at = CURRENT_TIMESTAMP, version = version + 1
WHERE status = 'QUEUED' AND handler IN (?) AND run_at > CURRENT_TIMESTAMP
