-- A schedule carries the settings its jobs are enqueued with, as registered where its
-- handler is, so that every instance fires the same job, with or without the handler.
-- A row from before (queue or max_attempts null) is fired only by an instance that has the
-- handler, from that handler's settings; never into a queue by guess.
ALTER TABLE queue_schedule ADD COLUMN priority integer NOT NULL DEFAULT 0;
ALTER TABLE queue_schedule ADD COLUMN max_attempts integer CHECK (max_attempts >= 1);
ALTER TABLE queue_schedule ADD COLUMN expire_after_millis bigint CHECK (expire_after_millis > 0);
ALTER TABLE queue_schedule ADD COLUMN concurrency_key varchar(255);
