SELECT COUNT(*) FROM queue_job_tag d
JOIN queue_job j ON j.id = d.job_id
WHERE d.tag = ?
  AND j.queue = ?
  AND j.created_at >= ?
  AND EXISTS (SELECT 1 FROM queue_job_tag t WHERE t.job_id = j.id AND t.tag = ?)
  AND EXISTS (SELECT 1 FROM queue_job_meta m WHERE m.job_id = j.id AND m.meta_name = ? AND m.meta_value = ?)
