WITH d AS (SELECT CAST(? AS bigint[]) AS ids, CAST(? AS bigint[]) AS tokens, CAST(? AS text[]) AS results,
                  CAST(? AS text[]) AS notes),
picked AS MATERIALIZED (
    SELECT j.id FROM queue_job j, d
    WHERE j.id = ANY(d.ids) AND j.lease_token = d.tokens[array_position(d.ids, j.id)]
      AND (j.status = 'RUNNING') IS TRUE AND j.settles = 0
    FOR UPDATE OF j SKIP LOCKED),
done AS (
    UPDATE queue_job j SET status = 'SUCCEEDED', result = CAST(d.results[array_position(d.ids, j.id)] AS jsonb),
        last_error = COALESCE(d.notes[array_position(d.ids, j.id)], j.last_error), finished_at = now(),
        updated_at = now(), lease_expires_at = NULL, version = j.version + 1
    FROM picked, d
    WHERE j.id = picked.id
    RETURNING j.id, j.awaited, j.attempts, j.lease_owner, j.started_at, j.finished_at, j.status),
recorded AS (
    INSERT INTO queue_attempt (job_id, attempt, worker, started_at, ended_at, outcome, status, error)
    SELECT id, attempts, lease_owner, started_at, finished_at, 'succeeded', status, NULL FROM done
)
SELECT id, awaited FROM done
