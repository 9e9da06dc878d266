VACUUM (ANALYZE, SKIP_LOCKED) queue_job, queue_flow, queue_rate_window, queue_fair_key, queue_dependency, queue_batch, queue_schedule, queue_instance, queue_attempt, queue_count, queue_count_turn
