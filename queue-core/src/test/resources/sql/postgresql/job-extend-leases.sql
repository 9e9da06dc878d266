WITH picked AS MATERIALIZED (
    SELECT j.id FROM queue_job j, (SELECT CAST(? AS bigint[]) AS ids, CAST(? AS bigint[]) AS tokens) d
    WHERE j.id = ANY(d.ids) AND j.lease_token = d.tokens[array_position(d.ids, j.id)]
      AND (j.status = 'RUNNING') IS TRUE
    FOR UPDATE OF j SKIP LOCKED)
UPDATE queue_job j SET lease_expires_at = now() + CAST(? AS double precision) * interval '1 millisecond'
FROM picked WHERE j.id = picked.id
RETURNING j.id
