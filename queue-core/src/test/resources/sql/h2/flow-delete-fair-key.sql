DELETE FROM queue_fair_key WHERE queue = ? AND fair_key = ?
