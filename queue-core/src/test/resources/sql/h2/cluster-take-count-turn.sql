UPDATE queue_count_turn SET turn = turn + 1, taken_by = ?, taken_at = CURRENT_TIMESTAMP
WHERE id = 1 AND taken_at < DATEADD(MILLISECOND, CAST(? AS BIGINT), CURRENT_TIMESTAMP) AND (counted_at >= taken_at OR taken_at < DATEADD(MILLISECOND, CAST(? AS BIGINT), CURRENT_TIMESTAMP))
