-- Tags and metadata of jobs (Job.tags, Job.meta), for operators to find jobs by
-- (docs/operations.md#searching-jobs). Side tables rather than columns of queue_job: each
-- row is written once, in the transaction that enqueues its job, and deleted with it; the
-- claim, the heartbeat and the completion never touch them. On PostgreSQL an index on
-- queue_job, however immutable its column, would get a new entry on every claim and
-- completion: their status UPDATEs change indexed columns, so no update of the row is HOT
-- and every index of the table gets the new row version.
-- queue_job_tag: (tag, job_id) serves a search by tag in id order, a keyset page; the
-- primary key (job_id, tag) reads and deletes a job's tags.
-- queue_job_meta: (meta_name, meta_value, job_id) likewise for a metadata entry.
CREATE TABLE queue_job_tag (
    job_id     BIGINT      NOT NULL,
    tag        VARCHAR(64)  NOT NULL,
    PRIMARY KEY (job_id, tag)
) ENGINE = InnoDB DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
CREATE INDEX queue_job_tag_search_idx ON queue_job_tag (tag, job_id);

CREATE TABLE queue_job_meta (
    job_id     BIGINT      NOT NULL,
    meta_name  VARCHAR(64)  NOT NULL,
    meta_value VARCHAR(255) NOT NULL,
    PRIMARY KEY (job_id, meta_name)
) ENGINE = InnoDB DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
CREATE INDEX queue_job_meta_search_idx ON queue_job_meta (meta_name, meta_value, job_id);
