UPDATE queue_batch SET finished_at = CASE WHEN remaining = ? THEN strftime('%Y-%m-%d %H:%M:%f', 'now') ELSE finished_at END,
    remaining = remaining - ?, succeeded = succeeded + ?, failed = failed + ?, cancelled = cancelled + ?
WHERE id = ?
