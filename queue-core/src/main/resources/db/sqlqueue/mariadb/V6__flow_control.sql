-- Flow control (README "Flow control"): limits on how many jobs of a queue, or of one
-- concurrency key in a queue, run at once and start per period, across every instance.
-- Times are UTC DATETIME(6) written by the queue (UTC_TIMESTAMP(6)), names utf8mb4_bin, as queue_job.

-- The key a job's limits are looked up by (Job.concurrencyKey); null for none. Nullable and
-- without a default: added without rewriting the table.
ALTER TABLE queue_job ADD COLUMN concurrency_key VARCHAR(255);

-- The limits. key_pattern '' is the queue as a whole; otherwise the limit holds for each
-- concurrency key it matches: the key itself, or every key with the prefix before a final '*'.
CREATE TABLE queue_limit (
    queue         VARCHAR(64)  NOT NULL,
    key_pattern   VARCHAR(255) NOT NULL,
    concurrency   INT          CHECK (concurrency >= 1),
    rate          INT          CHECK (rate >= 1),
    period_millis BIGINT       CHECK (period_millis >= 1),
    source        VARCHAR(16)  NOT NULL,
    created_at    DATETIME(6)  NOT NULL,
    updated_at    DATETIME(6)  NOT NULL,
    PRIMARY KEY (queue, key_pattern),
    CHECK (concurrency IS NOT NULL OR rate IS NOT NULL),
    CHECK ((rate IS NULL) = (period_millis IS NULL))
) ENGINE = InnoDB DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;

-- One row per queue that has limits. Every claim of such a queue locks its row first, so
-- the claims of one queue take turns and each counts what the ones before it took; version
-- moves with every change of the queue's limits, so instances know when to read them again.
-- window_*: the starts counted against the queue's own rate limit (as in queue_rate_window),
-- kept here so that the lock reads them as the claim before it left them.
CREATE TABLE queue_flow (
    queue           VARCHAR(64)  PRIMARY KEY,
    version         BIGINT       NOT NULL DEFAULT 0,
    window_start    BIGINT       NOT NULL DEFAULT 0,
    window_starts   INT          NOT NULL DEFAULT 0,
    previous_starts INT          NOT NULL DEFAULT 0
) ENGINE = InnoDB DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;

-- Starts per window of a rate limit's period, on the database's clock (epoch milliseconds,
-- windows aligned to multiples of the period): the current window's and the one before,
-- whose share of the period still left counts too (a sliding window), per concurrency key
-- of a limited queue; expires_at (two periods after window_start) is when the row no longer
-- counts and may be deleted. Written only under the queue's queue_flow lock.
CREATE TABLE queue_rate_window (
    queue           VARCHAR(64)  NOT NULL,
    concurrency_key VARCHAR(255) NOT NULL,
    window_start    BIGINT       NOT NULL,
    window_starts   INT          NOT NULL,
    previous_starts INT          NOT NULL,
    expires_at      BIGINT       NOT NULL,
    PRIMARY KEY (queue, concurrency_key)
) ENGINE = InnoDB DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
