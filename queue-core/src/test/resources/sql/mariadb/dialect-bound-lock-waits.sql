SET @sqlqueue_lock_wait = @@SESSION.innodb_lock_wait_timeout, SESSION innodb_lock_wait_timeout = 1;
SET SESSION innodb_lock_wait_timeout = @sqlqueue_lock_wait
