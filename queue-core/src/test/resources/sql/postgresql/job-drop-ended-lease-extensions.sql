DELETE FROM queue_lease_extension WHERE expires_at < now() AND stopped = FALSE
