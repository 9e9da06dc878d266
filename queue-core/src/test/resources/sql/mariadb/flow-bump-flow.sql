UPDATE queue_flow SET version = version + 1 WHERE queue = ?
