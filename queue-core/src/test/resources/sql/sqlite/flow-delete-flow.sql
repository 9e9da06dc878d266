DELETE FROM queue_flow WHERE queue = ?
