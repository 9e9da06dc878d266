INSERT INTO queue_batch (total, remaining, succeeded, failed, cancelled, created_at)
VALUES (?, ?, 0, 0, 0, UTC_TIMESTAMP(6))
