UPDATE queue_job SET run_at = now(), updated_at = now(), version = version + 1
WHERE status = 'QUEUED' AND handler IN (?) AND run_at > now()
