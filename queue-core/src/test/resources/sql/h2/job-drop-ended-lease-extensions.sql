DELETE FROM queue_lease_extension WHERE expires_at < CURRENT_TIMESTAMP AND stopped = FALSE
