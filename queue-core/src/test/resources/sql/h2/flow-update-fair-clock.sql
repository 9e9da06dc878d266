UPDATE queue_flow SET fair_clock = ? WHERE queue = ?
