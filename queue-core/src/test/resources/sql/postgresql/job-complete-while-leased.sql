UPDATE queue_job SET status = 'SUCCEEDED', result = CAST(? AS jsonb), last_error = COALESCE(?, last_error),
    finished_at = now(), updated_at = now(), lease_expires_at = NULL, version = version + 1
WHERE id = ? AND lease_token = ? AND status = 'RUNNING' AND lease_expires_at > clock_timestamp()
