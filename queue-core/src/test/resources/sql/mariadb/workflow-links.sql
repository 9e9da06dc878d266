SELECT waiting_for, on_dependency_failure, batch_id FROM queue_job WHERE id = ?
