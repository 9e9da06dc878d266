SELECT id FROM queue_batch WHERE finished_at < (now() + CAST(? AS double precision) * interval '1 millisecond')
  AND (callback_id IS NULL OR NOT EXISTS (
      SELECT 1 FROM queue_job j
      WHERE j.id = callback_id AND (j.status IN ('WAITING', 'QUEUED', 'RUNNING') OR j.finished_at >= (now() + CAST(? AS double precision) * interval '1 millisecond'))))
ORDER BY id
LIMIT ?
FOR UPDATE SKIP LOCKED
