SELECT id FROM queue_batch WHERE finished_at < (UTC_TIMESTAMP(6) + INTERVAL (? * 1000) MICROSECOND)
  AND (callback_id IS NULL OR NOT EXISTS (
      SELECT 1 FROM queue_job j
      WHERE j.id = callback_id AND (j.status IN ('WAITING', 'QUEUED', 'RUNNING') OR j.finished_at >= (UTC_TIMESTAMP(6) + INTERVAL (? * 1000) MICROSECOND))))
ORDER BY id
LIMIT ?
FOR UPDATE SKIP LOCKED
