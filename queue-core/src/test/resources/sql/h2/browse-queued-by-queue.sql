SELECT q.queue, SUM(q.due_jobs) AS due_jobs, SUM(q.delayed_jobs) AS delayed_jobs,
    SUM(q.backing_off) AS backing_off, SUM(q.parked_jobs) AS parked_jobs
FROM (SELECT j.queue,
          SUM(CASE WHEN j.run_at <= CURRENT_TIMESTAMP THEN 1 ELSE 0 END) AS due_jobs,
          SUM(CASE WHEN j.run_at > CURRENT_TIMESTAMP AND j.attempts = 0 THEN 1 ELSE 0 END) AS delayed_jobs,
          SUM(CASE WHEN j.run_at > CURRENT_TIMESTAMP AND j.attempts > 0 THEN 1 ELSE 0 END) AS backing_off,
          0 AS parked_jobs
      FROM queue_job j
      WHERE j.status = 'QUEUED'
      GROUP BY j.queue
      UNION ALL
      SELECT j.queue, 0, -SUM(CASE WHEN j.attempts = 0 THEN 1 ELSE 0 END),
          -SUM(CASE WHEN j.attempts > 0 THEN 1 ELSE 0 END), COUNT(*)
      FROM queue_job j
      WHERE (j.status = 'QUEUED' AND j.run_at > CURRENT_TIMESTAMP AND EXISTS (SELECT 1 FROM queue_job_step s WHERE s.job_id = j.id AND s.kind IN ('sleep', 'signal') AND s.wake_at = j.run_at))
      GROUP BY j.queue) q
GROUP BY q.queue
