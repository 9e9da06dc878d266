SELECT queue, paused_at, paused_by FROM queue_paused ORDER BY queue
