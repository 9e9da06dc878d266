UPDATE queue_count_turn SET turn = turn + 1, taken_by = ?, taken_at = UTC_TIMESTAMP(6)
WHERE id = 1 AND taken_at < (UTC_TIMESTAMP(6) + INTERVAL (? * 1000) MICROSECOND) AND (counted_at >= taken_at OR taken_at < (UTC_TIMESTAMP(6) + INTERVAL (? * 1000) MICROSECOND))
