-- Counts shared by the instances (docs/operations.md#counts-counted-once-for-the-cluster).
-- Once per stats interval one instance takes the turn (the one row of queue_count_turn),
-- counts the jobs and writes the counts to queue_count; the others read those rows instead
-- of counting the table themselves. turn grows with every taking: counts are written only
-- by the taker of the current turn, so an instance that stalled past its turn writes nothing.
-- kind: a job status (QUEUED, RUNNING, ...), or 'throttled:' and a limit (due jobs a limit
-- holds back). oldest_due_ms: for QUEUED, the age of the oldest due job when counted.
CREATE TABLE queue_count (
    queue         VARCHAR(64)  NOT NULL,
    kind          VARCHAR(64)  NOT NULL,
    jobs          BIGINT       NOT NULL,
    oldest_due_ms BIGINT       NOT NULL,
    estimated     BOOLEAN      NOT NULL,
    PRIMARY KEY (queue, kind)
);

CREATE TABLE queue_count_turn (
    id         INTEGER      PRIMARY KEY CHECK (id = 1),
    turn       BIGINT       NOT NULL,
    taken_by   VARCHAR(128),
    taken_at   TIMESTAMP WITH TIME ZONE NOT NULL,
    counted_by VARCHAR(128),
    counted_at TIMESTAMP WITH TIME ZONE
);

INSERT INTO queue_count_turn (id, turn, taken_at) VALUES (1, 0, TIMESTAMP WITH TIME ZONE '1970-01-01 00:00:00+00');
