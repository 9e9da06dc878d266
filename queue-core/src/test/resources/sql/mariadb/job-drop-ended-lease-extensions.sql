DELETE FROM queue_lease_extension WHERE expires_at < UTC_TIMESTAMP(6) AND stopped = FALSE
