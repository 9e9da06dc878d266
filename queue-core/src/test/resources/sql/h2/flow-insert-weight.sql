INSERT INTO queue_fairness (queue, key_pattern, weight, source, created_at, updated_at)
VALUES (?, ?, ?, ?, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)
