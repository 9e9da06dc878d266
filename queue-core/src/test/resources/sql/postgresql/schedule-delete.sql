DELETE FROM queue_schedule WHERE name = ?
