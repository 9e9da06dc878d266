INSERT INTO queue_audit (acted_at, actor, action, queue, job_id, schedule, jobs, detail)
VALUES (CURRENT_TIMESTAMP, ?, ?, ?, ?, ?, ?, ?)
