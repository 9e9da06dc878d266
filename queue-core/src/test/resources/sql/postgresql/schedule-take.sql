UPDATE queue_schedule SET version = version + 1 WHERE name = ? AND version = ?
