SELECT version FROM queue_flow WHERE queue = ?
