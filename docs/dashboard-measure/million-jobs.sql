-- 1,000,000 jobs in schema dash_measure, for timing the dashboard (docs/performance.md).
-- From the repository root: psql -h 127.0.0.1 -U postgres -d test -f docs/dashboard-measure/million-jobs.sql
DROP SCHEMA IF EXISTS dash_measure CASCADE;
CREATE SCHEMA dash_measure;
SET search_path = dash_measure;
\i queue-core/src/main/resources/db/sqlqueue/postgresql/V1__create_queue_job.sql
\i queue-core/src/main/resources/db/sqlqueue/postgresql/V2__one_running_job_per_group.sql
\i queue-core/src/main/resources/db/sqlqueue/postgresql/V3__create_queue_schedule.sql
-- 1,000,000 jobs shaped like a busy queue: mostly finished, 1 % failed, a few waiting.
-- Queues: mail (60 %), reports (30 %), billing (9.9 %), audit (0.1 %, rare); 12 handlers.
INSERT INTO queue_job (queue, handler, payload, status, priority, run_at, attempts, max_attempts,
                       unique_key, group_key, last_error, result, created_at, updated_at, started_at, finished_at,
                       lease_token)
SELECT q, q || '.h' || (i % 3), CAST('{"userId": ' || i || ', "email": "user' || i || '@example.com"}' AS jsonb),
       st, 0, ts, CASE WHEN st = 'QUEUED' THEN 0 ELSE 1 END, 5,
       CASE WHEN i % 10 = 0 THEN 'order-' || i END,
       CASE WHEN i % 20 = 0 THEN 'customer-' || (i % 5000) END,
       CASE WHEN st = 'FAILED' THEN 'java.lang.IllegalStateException: boom ' || i || E'\n\tat x.y(Z.java:1)' END,
       CASE WHEN st = 'SUCCEEDED' THEN CAST('{"ok": true}' AS jsonb) END,
       ts, ts, CASE WHEN st <> 'QUEUED' THEN ts END,
       CASE WHEN st IN ('SUCCEEDED', 'FAILED', 'CANCELLED') THEN ts + interval '1 second' END,
       CASE WHEN st <> 'QUEUED' THEN i END
FROM (
  SELECT i,
         CASE WHEN i % 1000 = 7 THEN 'audit' WHEN i % 10 < 6 THEN 'mail' WHEN i % 10 < 9 THEN 'reports' ELSE 'billing' END AS q,
         CASE WHEN i > 999000 THEN 'QUEUED' WHEN i % 100 = 3 THEN 'FAILED' WHEN i % 100 = 5 THEN 'CANCELLED' ELSE 'SUCCEEDED' END AS st,
         now() - (1000000 - i) * interval '30 millisecond' AS ts
  FROM generate_series(1, 1000000) AS i) g;
VACUUM ANALYZE queue_job;
SELECT status, count(*) FROM queue_job GROUP BY status;
SELECT queue, count(*) FROM queue_job GROUP BY queue;
