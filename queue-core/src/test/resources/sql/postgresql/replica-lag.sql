SELECT pg_is_in_recovery() AS in_recovery,
    CASE WHEN pg_is_in_recovery() THEN pg_is_wal_replay_paused() END AS replay_paused,
    EXISTS (SELECT 1 FROM pg_stat_wal_receiver) AS receiving,
    COALESCE(pg_wal_lsn_diff(pg_last_wal_receive_lsn(), pg_last_wal_replay_lsn()) <= 0, FALSE)
        AS replayed_all,
    CAST(EXTRACT(EPOCH FROM (clock_timestamp() - pg_last_xact_replay_timestamp())) * 1000 AS bigint)
        AS since_last_replay
