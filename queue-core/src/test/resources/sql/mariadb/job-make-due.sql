UPDATE queue_job SET run_at = UTC_TIMESTAMP(6), updated_at = UTC_TIMESTAMP(6), version = version + 1
WHERE status = 'QUEUED' AND handler IN (?) AND run_at > UTC_TIMESTAMP(6)
