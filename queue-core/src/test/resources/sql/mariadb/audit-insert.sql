INSERT INTO queue_audit (acted_at, actor, action, queue, job_id, schedule, jobs, detail)
VALUES (UTC_TIMESTAMP(6), ?, ?, ?, ?, ?, ?, ?)
