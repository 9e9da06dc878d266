UPDATE queue_fairness SET declared_until = (now() + CAST(? AS double precision) * interval '1 millisecond')
WHERE queue = ? AND key_pattern = '' AND (declared_until IS NULL OR declared_until < (now() + CAST(? AS double precision) * interval '1 millisecond'))
