SET LOCAL lock_timeout = '1000ms'
