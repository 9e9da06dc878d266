UPDATE (SELECT ? AS id, ? AS lease_token, ? AS result, ? AS note
        UNION ALL SELECT ?, ?, ?, ?
        UNION ALL SELECT ?, ?, ?, ?
        UNION ALL SELECT ?, ?, ?, ?) d
STRAIGHT_JOIN queue_job j FORCE INDEX (PRIMARY) ON j.id = d.id
SET j.status = 'SUCCEEDED', j.result = d.result, j.last_error = COALESCE(d.note, j.last_error),
    j.finished_at = UTC_TIMESTAMP(6), j.updated_at = UTC_TIMESTAMP(6), j.lease_expires_at = NULL,
    j.version = j.version + 1
WHERE j.lease_token = d.lease_token AND j.status = 'RUNNING' AND j.settles = 0
