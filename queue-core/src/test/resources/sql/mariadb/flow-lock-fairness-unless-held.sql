SELECT queue FROM queue_fairness WHERE queue = ? AND key_pattern = ''
FOR UPDATE SKIP LOCKED
