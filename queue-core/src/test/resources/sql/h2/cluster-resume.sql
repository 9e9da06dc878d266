DELETE FROM queue_paused WHERE queue = ?
