DELETE FROM queue_dependency;
DELETE FROM queue_batch;
DELETE FROM queue_attempt;
DELETE FROM queue_job_tag;
DELETE FROM queue_job_meta;
DELETE FROM queue_job_step;
DELETE FROM queue_job_signal;
DELETE FROM queue_lease_extension;
DELETE FROM queue_job;
DELETE FROM queue_rate_window;
DELETE FROM queue_fair_key;
DELETE FROM queue_paused;
DELETE FROM queue_audit;
DELETE FROM queue_count;
UPDATE queue_count_turn SET taken_by = NULL, counted_by = NULL, counted_at = NULL;
UPDATE queue_flow SET window_start = 0, window_starts = 0, previous_starts = 0
