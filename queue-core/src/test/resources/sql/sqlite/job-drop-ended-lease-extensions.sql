DELETE FROM queue_lease_extension WHERE expires_at < strftime('%Y-%m-%d %H:%M:%f', 'now') AND stopped = FALSE
