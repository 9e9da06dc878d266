SELECT COUNT(*) FROM queue_fairness WHERE queue = ?
