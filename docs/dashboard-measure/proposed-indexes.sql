SET search_path = dash_measure;
-- The indexes proposed for the dashboard's rare filters and key search (not in the migrations yet).
CREATE INDEX queue_job_queue_browse_idx ON queue_job (queue, id);
CREATE INDEX queue_job_handler_browse_idx ON queue_job (handler, id);
CREATE INDEX queue_job_unique_key_browse_idx ON queue_job (unique_key) WHERE unique_key IS NOT NULL;
CREATE INDEX queue_job_group_key_browse_idx ON queue_job (group_key, id) WHERE group_key IS NOT NULL;
ANALYZE queue_job;
