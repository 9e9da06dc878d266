SELECT TABLE_NAME AS name, TABLE_ROWS AS live_rows, DATA_LENGTH AS data_bytes,
       INDEX_LENGTH AS index_bytes, DATA_FREE AS free_bytes
FROM information_schema.TABLES
WHERE TABLE_SCHEMA = COALESCE(?, DATABASE()) AND TABLE_NAME IN ('queue_job', 'queue_flow', 'queue_rate_window', 'queue_fair_key', 'queue_dependency', 'queue_batch', 'queue_schedule', 'queue_limit', 'queue_attempt')
ORDER BY TABLE_NAME;

SELECT t.trx_mysql_thread_id AS pid, CONCAT(p.USER, '@', p.HOST) AS application,
       CONCAT(t.trx_state, ' (', p.COMMAND, ')') AS state,
       TIMESTAMPDIFF(MICROSECOND, t.trx_started, NOW(6)) DIV 1000 AS age_millis
FROM information_schema.INNODB_TRX t
LEFT JOIN information_schema.PROCESSLIST p ON p.ID = t.trx_mysql_thread_id
WHERE t.trx_mysql_thread_id <> CONNECTION_ID()
ORDER BY t.trx_started
LIMIT 5;

SELECT `COUNT` FROM information_schema.INNODB_METRICS WHERE NAME = 'trx_rseg_history_len'
