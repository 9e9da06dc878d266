SELECT q.queue,
    SUM(CASE WHEN q.due = 1 THEN 1 ELSE 0 END) AS due_jobs,
    SUM(CASE WHEN q.due = 0 AND q.parked = 0 AND q.attempts = 0 THEN 1 ELSE 0 END) AS delayed_jobs,
    SUM(CASE WHEN q.due = 0 AND q.parked = 0 AND q.attempts > 0 THEN 1 ELSE 0 END) AS backing_off,
    SUM(q.parked) AS parked_jobs
FROM (SELECT j.queue, j.attempts, CASE WHEN j.run_at <= now() THEN 1 ELSE 0 END AS due,
          CASE WHEN (j.status = 'QUEUED' AND j.run_at > now() AND EXISTS (SELECT 1 FROM queue_job_step s WHERE s.job_id = j.id AND s.kind IN ('sleep', 'signal') AND s.wake_at = j.run_at)) THEN 1 ELSE 0 END AS parked
      FROM queue_job j
      WHERE j.status = 'QUEUED') q
GROUP BY q.queue
