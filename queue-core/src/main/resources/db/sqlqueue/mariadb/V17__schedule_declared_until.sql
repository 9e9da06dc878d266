-- Schedules declared by live instances (docs/recurring-jobs.md#versions). Each instance that
-- declares a schedule (from its properties or @Recurring) writes declared_until, the database's
-- clock plus three of its heartbeat intervals, at start-up and at every heartbeat interval
-- after. An instance that does not declare the schedule marks it orphaned only once
-- declared_until has passed (or is null: last declared by a version before this column), so an
-- older instance started beside a newer one does not switch off the newer one's schedules.
-- UTC DATETIME(6), as the other times.
ALTER TABLE queue_schedule ADD COLUMN declared_until DATETIME(6);
