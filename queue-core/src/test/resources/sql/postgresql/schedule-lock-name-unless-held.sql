SELECT name FROM queue_schedule WHERE name = ?
FOR UPDATE SKIP LOCKED
