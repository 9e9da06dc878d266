UPDATE queue_count_turn SET turn = turn + 1, taken_by = ?, taken_at = now()
WHERE id = 1 AND taken_at < (now() + CAST(? AS double precision) * interval '1 millisecond') AND (counted_at >= taken_at OR taken_at < (now() + CAST(? AS double precision) * interval '1 millisecond'))
