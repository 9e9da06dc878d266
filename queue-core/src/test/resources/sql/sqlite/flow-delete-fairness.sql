DELETE FROM queue_fairness WHERE queue = ?
