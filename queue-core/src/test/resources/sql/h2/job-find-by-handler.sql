SELECT * FROM queue_job WHERE handler = ? AND status = ?
ORDER BY id
LIMIT ?
