UPDATE queue_fairness SET declared_until = DATEADD(MILLISECOND, CAST(? AS BIGINT), CURRENT_TIMESTAMP)
WHERE queue = ? AND key_pattern = '' AND (declared_until IS NULL OR declared_until < DATEADD(MILLISECOND, CAST(? AS BIGINT), CURRENT_TIMESTAMP))
