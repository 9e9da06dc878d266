INSERT INTO queue_fairness (queue, key_pattern, weight, source, created_at, updated_at)
VALUES (?, ?, ?, ?, UTC_TIMESTAMP(6), UTC_TIMESTAMP(6))
