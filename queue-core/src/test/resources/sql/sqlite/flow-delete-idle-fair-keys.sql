DELETE FROM queue_fair_key WHERE queue = ? AND pass <= ? AND window_start < ?
