SELECT now() AS db_now
