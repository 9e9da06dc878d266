DELETE FROM queue_count
