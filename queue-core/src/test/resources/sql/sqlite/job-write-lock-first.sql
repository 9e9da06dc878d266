UPDATE queue_job SET version = version WHERE id = -1
