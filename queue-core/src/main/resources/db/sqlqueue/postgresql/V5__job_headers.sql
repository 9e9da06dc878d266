-- Propagation headers: what an enqueue made inside an observation (a trace) carries to the
-- job's attempts, as a JSON object of strings (e.g. {"traceparent": "00-…-…-01"}). NULL when
-- there was nothing to carry (no tracing), so a queue without tracing stores nothing more.
-- A nullable column without a default: added without rewriting the table.
ALTER TABLE queue_job ADD COLUMN headers jsonb;
