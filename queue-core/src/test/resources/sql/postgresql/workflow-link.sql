UPDATE queue_job SET status = ?, waiting_for = ?, on_dependency_failure = ?, batch_id = ?, settles = ?
WHERE id = ?
