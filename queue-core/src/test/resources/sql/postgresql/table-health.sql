SELECT c.relname AS name, s.n_live_tup AS live_rows, s.n_dead_tup AS dead_rows,
       pg_table_size(c.oid) AS data_bytes, pg_indexes_size(c.oid) AS index_bytes
FROM pg_class c
JOIN pg_namespace n ON n.oid = c.relnamespace
LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid
WHERE n.nspname = COALESCE(CAST(? AS text), current_schema()) AND c.relkind IN ('r', 'p')
  AND c.relname IN ('queue_job', 'queue_flow', 'queue_rate_window', 'queue_fair_key', 'queue_dependency', 'queue_batch', 'queue_schedule', 'queue_limit', 'queue_attempt')
ORDER BY c.relname;

(SELECT 'transaction' AS kind, pid, CAST(NULL AS text) AS name, application_name AS application, state,
        CAST(EXTRACT(EPOCH FROM clock_timestamp() - COALESCE(xact_start, query_start)) * 1000 AS bigint) AS age_millis, age(backend_xmin) AS xmin_age, CAST(NULL AS integer) AS catalog_xmin_age
 FROM pg_stat_activity
 WHERE backend_xmin IS NOT NULL AND pid <> pg_backend_pid() AND backend_type <> 'autovacuum worker'
   AND (datname = current_database() OR backend_type = 'walsender')
 ORDER BY age(backend_xmin) DESC LIMIT 5)
UNION ALL
(SELECT 'prepared', CAST(NULL AS integer), gid, owner, CAST(NULL AS text), CAST(EXTRACT(EPOCH FROM clock_timestamp() - prepared) * 1000 AS bigint), age(transaction), CAST(NULL AS integer)
 FROM pg_prepared_xacts
 WHERE database = current_database()
 ORDER BY age(transaction) DESC LIMIT 5)
UNION ALL
(SELECT 'replication-slot', active_pid, slot_name, slot_type,
        CASE WHEN active THEN 'active' ELSE 'inactive' END, CAST(NULL AS bigint), age(xmin), age(catalog_xmin)
 FROM pg_replication_slots
 WHERE xmin IS NOT NULL OR catalog_xmin IS NOT NULL
 ORDER BY greatest(age(xmin), age(catalog_xmin)) DESC LIMIT 5)
