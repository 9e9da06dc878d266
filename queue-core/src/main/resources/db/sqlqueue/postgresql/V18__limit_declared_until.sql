-- Limits and fair turns declared by live instances (docs/flow-control.md#versions). Each
-- instance that declares a limit (from its configuration or @JobHandler) writes declared_until
-- on its row, the database's clock plus three of its heartbeat intervals, at start-up and at
-- every heartbeat interval after; fair turns keep it on the queue's own row (key_pattern '').
-- An instance that does not declare a limit (or turns) of a queue it serves removes it only
-- once declared_until has passed (or is null: last declared by a version before this column),
-- so an older instance started beside a newer one leaves the newer one's limits in force.
ALTER TABLE queue_limit ADD COLUMN declared_until timestamptz;
ALTER TABLE queue_fairness ADD COLUMN declared_until timestamptz;
