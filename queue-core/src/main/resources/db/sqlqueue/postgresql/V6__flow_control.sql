-- Flow control (README "Flow control"): limits on how many jobs of a queue, or of one
-- concurrency key in a queue, run at once and start per period, across every instance.

-- The key a job's limits are looked up by (Job.concurrencyKey); null for none. Nullable and
-- without a default: added without rewriting the table.
ALTER TABLE queue_job ADD COLUMN concurrency_key varchar(255);

-- The limits. key_pattern '' is the queue as a whole; otherwise the limit holds for each
-- concurrency key it matches: the key itself, or every key with the prefix before a final '*'.
CREATE TABLE queue_limit (
    queue         varchar(64)  NOT NULL,
    key_pattern   varchar(255) NOT NULL,
    concurrency   integer      CHECK (concurrency >= 1),
    rate          integer      CHECK (rate >= 1),
    period_millis bigint       CHECK (period_millis >= 1),
    source        varchar(16)  NOT NULL,
    created_at    timestamptz  NOT NULL DEFAULT now(),
    updated_at    timestamptz  NOT NULL DEFAULT now(),
    PRIMARY KEY (queue, key_pattern),
    CHECK (concurrency IS NOT NULL OR rate IS NOT NULL),
    CHECK ((rate IS NULL) = (period_millis IS NULL))
);

-- One row per queue that has limits. Every claim of such a queue locks its row first, so
-- the claims of one queue take turns and each counts what the ones before it took; version
-- moves with every change of the queue's limits, so instances know when to read them again.
-- window_*: the starts counted against the queue's own rate limit (as in queue_rate_window),
-- kept here so that the lock reads them as the claim before it left them.
CREATE TABLE queue_flow (
    queue           varchar(64)  PRIMARY KEY,
    version         bigint       NOT NULL DEFAULT 0,
    window_start    bigint       NOT NULL DEFAULT 0,
    window_starts   integer      NOT NULL DEFAULT 0,
    previous_starts integer      NOT NULL DEFAULT 0
);

-- Starts per window of a rate limit's period, on the database's clock (epoch milliseconds,
-- windows aligned to multiples of the period): the current window's and the one before,
-- whose share of the period still left counts too (a sliding window), per concurrency key
-- of a limited queue; expires_at (two periods after window_start) is when the row no longer
-- counts and may be deleted. Written only under the queue's queue_flow lock.
CREATE TABLE queue_rate_window (
    queue           varchar(64)  NOT NULL,
    concurrency_key varchar(255) NOT NULL,
    window_start    bigint       NOT NULL,
    window_starts   integer      NOT NULL,
    previous_starts integer      NOT NULL,
    expires_at      bigint       NOT NULL,
    PRIMARY KEY (queue, concurrency_key)
);
