SELECT queue, key_pattern, weight, source FROM queue_fairness ORDER BY queue, key_pattern
