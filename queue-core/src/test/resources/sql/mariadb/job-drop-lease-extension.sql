DELETE FROM queue_lease_extension WHERE job_id = ? AND token = ?
