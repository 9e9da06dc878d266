SELECT id, acted_at, actor, action, queue, job_id, schedule, jobs, detail FROM queue_audit
ORDER BY id DESC
LIMIT ?
