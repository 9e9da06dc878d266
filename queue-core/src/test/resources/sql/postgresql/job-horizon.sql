SELECT CAST(xid AS text) FROM (
    SELECT backend_xmin AS xid FROM pg_stat_activity WHERE backend_xmin IS NOT NULL AND pid <> pg_backend_pid() AND backend_type <> 'autovacuum worker'
   AND (datname = current_database() OR backend_type = 'walsender')
    UNION ALL
    SELECT backend_xid FROM pg_stat_activity
    WHERE backend_xid IS NOT NULL AND pid <> pg_backend_pid() AND datname = current_database()
    UNION ALL
    SELECT transaction FROM pg_prepared_xacts WHERE database = current_database()
    UNION ALL
    SELECT xmin FROM pg_replication_slots WHERE xmin IS NOT NULL) holders
ORDER BY age(xid) DESC
LIMIT 1
