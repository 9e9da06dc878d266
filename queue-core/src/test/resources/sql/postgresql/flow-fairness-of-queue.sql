SELECT queue, key_pattern, weight, source FROM queue_fairness WHERE queue = ?
