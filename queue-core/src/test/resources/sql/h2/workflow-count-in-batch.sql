UPDATE queue_batch SET finished_at = CASE WHEN remaining = ? THEN CURRENT_TIMESTAMP ELSE finished_at END,
    remaining = remaining - ?, succeeded = succeeded + ?, failed = failed + ?, cancelled = cancelled + ?
WHERE id = ?
