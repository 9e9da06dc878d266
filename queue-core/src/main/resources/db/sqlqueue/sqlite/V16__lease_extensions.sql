-- A lease extended beside its job's row: see the PostgreSQL migration of the same version.
-- SQLite has no row locks, so nothing is passed over and the table stays empty; the reaper's
-- statement, the same on every database, reads it. Times as the dialect's fixed-width UTC text.
CREATE TABLE queue_lease_extension (
    job_id     INTEGER NOT NULL,
    token      INTEGER NOT NULL,
    expires_at TEXT    NOT NULL,
    stopped    INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (job_id, token)
);
