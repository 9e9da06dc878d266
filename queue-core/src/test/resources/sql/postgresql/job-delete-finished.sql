DELETE FROM queue_job WHERE id = ? AND status = ?
