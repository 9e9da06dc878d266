DELETE FROM queue_audit WHERE acted_at < (now() + CAST(? AS double precision) * interval '1 millisecond')
