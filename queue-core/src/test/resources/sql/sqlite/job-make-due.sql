UPDATE queue_job SET run_at = strftime('%Y-%m-%d %H:%M:%f', 'now'), updated_at = strftime('%Y-%m-%d %H:%M:%f', 'now'), version = version + 1
WHERE status = 'QUEUED' AND handler IN (?) AND run_at > strftime('%Y-%m-%d %H:%M:%f', 'now')
