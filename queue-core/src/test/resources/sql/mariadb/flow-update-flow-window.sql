UPDATE queue_flow SET window_start = ?, window_starts = ?, previous_starts = ?
WHERE queue = ?
