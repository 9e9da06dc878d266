-- A lease extended beside its job's row (docs/how-it-works.md#heartbeat). When another
-- transaction holds a running job's row (a caller that enqueued a job to run after it, and has
-- not committed), the heartbeat cannot write the row's lease_expires_at; it writes the lease's
-- new expiry here instead, a row nobody else locks. A lease ends at the later of the two, for
-- the same token, so the reaper does not take the job from the instance that still runs it
-- when the holder lets go. No foreign key: checking one would wait for the very row lock this
-- table goes around. Rows past their expiry are deleted by the reaper.
-- stopped: the instance stopped while the job's handler still ran and did not end when
-- interrupted (docs/how-it-works.md, "Stop"); the lease's end is then no crash. Such a row
-- extends nothing (it expires as written) and is deleted when the job is reaped.
CREATE TABLE queue_lease_extension (
    job_id     bigint      NOT NULL,
    token      bigint      NOT NULL,
    expires_at timestamptz NOT NULL,
    stopped    boolean     NOT NULL DEFAULT false,
    PRIMARY KEY (job_id, token)
);
