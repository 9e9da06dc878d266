SELECT id FROM queue_batch WHERE finished_at < strftime('%Y-%m-%d %H:%M:%f', 'now', (CAST(? AS REAL) / 1000) || ' seconds')
  AND (callback_id IS NULL OR NOT EXISTS (
      SELECT 1 FROM queue_job j
      WHERE j.id = callback_id AND (j.status IN ('WAITING', 'QUEUED', 'RUNNING') OR j.finished_at >= strftime('%Y-%m-%d %H:%M:%f', 'now', (CAST(? AS REAL) / 1000) || ' seconds'))))
ORDER BY id
LIMIT ?
