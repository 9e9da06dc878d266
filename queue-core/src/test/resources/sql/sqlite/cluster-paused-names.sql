SELECT queue FROM queue_paused
