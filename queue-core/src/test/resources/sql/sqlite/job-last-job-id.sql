SELECT MAX(id) FROM queue_job
