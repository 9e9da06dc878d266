SELECT name FROM queue_schedule WHERE name = ? AND version = ?
FOR UPDATE SKIP LOCKED
