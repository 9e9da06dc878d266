DELETE FROM queue_instance WHERE last_seen < (now() + CAST(? AS double precision) * interval '1 millisecond')
