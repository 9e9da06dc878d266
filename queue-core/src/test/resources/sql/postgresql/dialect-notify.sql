SELECT pg_notify(?, ?)
