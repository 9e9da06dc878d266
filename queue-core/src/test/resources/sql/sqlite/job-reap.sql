UPDATE queue_job SET status = ?, finished_at = CASE WHEN ? = 'QUEUED' THEN NULL ELSE strftime('%Y-%m-%d %H:%M:%f', 'now') END,
    run_at = strftime('%Y-%m-%d %H:%M:%f', 'now'), last_error = ?, updated_at = strftime('%Y-%m-%d %H:%M:%f', 'now'),
    lease_token = NULL, lease_expires_at = NULL, crashes = crashes + ?, version = version + 1
WHERE id = ? AND lease_token = ? AND status = 'RUNNING' AND lease_expires_at < strftime('%Y-%m-%d %H:%M:%f', 'now') AND NOT EXISTS (SELECT 1 FROM queue_lease_extension x WHERE x.job_id = id AND x.token = lease_token AND x.expires_at >= strftime('%Y-%m-%d %H:%M:%f', 'now'))
