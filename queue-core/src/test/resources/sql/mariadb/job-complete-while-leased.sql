UPDATE queue_job SET status = 'SUCCEEDED', result = ?, last_error = COALESCE(?, last_error),
    finished_at = UTC_TIMESTAMP(6), updated_at = UTC_TIMESTAMP(6), lease_expires_at = NULL, version = version + 1
WHERE id = ? AND lease_token = ? AND status = 'RUNNING' AND (lease_expires_at >= UTC_TIMESTAMP(6) OR EXISTS (SELECT 1 FROM queue_lease_extension x WHERE x.job_id = id AND x.token = lease_token AND x.expires_at >= UTC_TIMESTAMP(6)))
