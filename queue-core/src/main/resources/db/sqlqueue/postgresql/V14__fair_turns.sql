-- Fair turns across keys (docs/flow-control.md#fair-turns): among a queue's due jobs of equal
-- priority, concurrency keys take turns, weighted by pattern.

-- The weights of a fair queue. key_pattern '' is the queue itself: its row makes the queue
-- fair (weight: of keys no pattern matches, and of jobs without a key); any other pattern
-- weighs each key it matches (exact, or a prefix before a final '*').
CREATE TABLE queue_fairness (
    queue       varchar(64)  NOT NULL,
    key_pattern varchar(255) NOT NULL,
    weight      integer      NOT NULL CHECK (weight >= 1),
    source      varchar(16)  NOT NULL,
    created_at  timestamptz  NOT NULL DEFAULT now(),
    updated_at  timestamptz  NOT NULL DEFAULT now(),
    PRIMARY KEY (queue, key_pattern)
);

-- The keys in a fair queue's turns (stride scheduling): those with jobs queued, as claims
-- last found them. pass grows by 1,000,000 / weight with each start; the key with the
-- smallest pass goes next. A key found with jobs queued enters at the smallest pass there is
-- (it saved up no turns while it had none), and leaves when a claim finds none of its jobs
-- due. fair_key '' is the jobs without a key. window_*: starts in the current and the
-- previous minute, for the share shown to operators. Written only under the queue's
-- queue_flow lock. No index but the key: a claim reads its queue's rows (as many as keys
-- with jobs queued) and rewrites those that started jobs, so updates stay heap-only and
-- the table does not grow between two vacuums.
CREATE TABLE queue_fair_key (
    queue           varchar(64)  NOT NULL,
    fair_key        varchar(255) NOT NULL,
    pass            bigint       NOT NULL,
    window_start    bigint       NOT NULL,
    window_starts   integer      NOT NULL,
    previous_starts integer      NOT NULL,
    PRIMARY KEY (queue, fair_key)
) WITH (fillfactor = 50);

-- A fair claim finds the keys with queued jobs at a priority by skipping from key to key
-- along this index, and each key's first jobs in run order: its cost grows with the keys
-- that have jobs due, not with the jobs.
CREATE INDEX queue_job_fair_idx ON queue_job (queue, priority DESC, concurrency_key, run_at, id) WHERE status = 'QUEUED';
