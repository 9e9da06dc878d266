SELECT fair_clock FROM queue_flow WHERE queue = ?
