package io.sqlqueue.fault;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The fault suite's own tables beside {@code queue_job}, in the test's schema: what the
 * handlers did ({@code fault_effect}; {@code fault_step_effect} for the steps' handler),
 * every change of a job's status as the database saw it ({@code fault_audit}, filled by a trigger, so no worker can forget to write it), the
 * workers' own reports ({@code fault_worker}) and the faults the test caused
 * ({@code fault_event}, on the database's clock). {@link FaultChecker} reads only these
 * and {@code queue_job}.
 */
final class FaultSchema {

	private FaultSchema() {
	}

	static void install(JdbcTemplate jdbc, String schema) {
		jdbc.execute("""
				CREATE TABLE %1$s.fault_effect (
				    id        bigserial PRIMARY KEY,
				    job_id    bigint       NOT NULL,
				    worker_id varchar(128) NOT NULL,
				    attempt   integer      NOT NULL,
				    at        timestamptz  NOT NULL,
				    started   timestamptz)""".formatted(schema));
		jdbc.execute("CREATE INDEX fault_effect_job_idx ON %s.fault_effect (job_id)".formatted(schema));
		jdbc.execute("""
				CREATE TABLE %s.fault_step_effect (
				    id        bigserial PRIMARY KEY,
				    job_id    bigint       NOT NULL,
				    step      varchar(8)   NOT NULL,
				    worker_id varchar(128) NOT NULL,
				    attempt   integer      NOT NULL,
				    at        timestamptz  NOT NULL)""".formatted(schema));
		jdbc.execute("CREATE INDEX fault_step_effect_job_idx ON %s.fault_step_effect (job_id, step)"
			.formatted(schema));
		jdbc.execute("""
				CREATE TABLE %1$s.fault_audit (
				    id           bigserial PRIMARY KEY,
				    job_id       bigint       NOT NULL,
				    old_status   varchar(16)  NOT NULL,
				    new_status   varchar(16)  NOT NULL,
				    old_token    bigint,
				    new_token    bigint,
				    old_owner    varchar(128),
				    new_owner    varchar(128),
				    new_attempts integer      NOT NULL,
				    last_error   text,
				    at           timestamptz  NOT NULL)""".formatted(schema));
		jdbc.execute("CREATE INDEX fault_audit_job_idx ON %s.fault_audit (job_id)".formatted(schema));
		jdbc.execute("""
				CREATE TABLE %s.fault_worker (
				    worker_id    varchar(128) PRIMARY KEY,
				    pid          bigint      NOT NULL,
				    started_at   timestamptz NOT NULL,
				    stopped_at   timestamptz,
				    lease_losses bigint)""".formatted(schema));
		jdbc.execute("""
				CREATE TABLE %s.fault_event (
				    id        bigserial PRIMARY KEY,
				    kind      varchar(32) NOT NULL,
				    worker_id varchar(128),
				    at        timestamptz NOT NULL DEFAULT clock_timestamp())""".formatted(schema));
		// Names qualified: the trigger runs with the search path of whichever session updates the job.
		jdbc.execute("""
				CREATE FUNCTION %1$s.fault_audit_job() RETURNS trigger LANGUAGE plpgsql AS $$
				BEGIN
				    INSERT INTO %1$s.fault_audit (job_id, old_status, new_status, old_token, new_token, old_owner,
				                                  new_owner, new_attempts, last_error, at)
				    VALUES (NEW.id, OLD.status, NEW.status, OLD.lease_token, NEW.lease_token, OLD.lease_owner,
				            NEW.lease_owner, NEW.attempts, left(NEW.last_error, 200), clock_timestamp());
				    RETURN NULL;
				END $$""".formatted(schema));
		// Heartbeats change no status and are left out; a final status written again is kept.
		jdbc.execute("""
				CREATE TRIGGER fault_audit AFTER UPDATE ON %1$s.queue_job FOR EACH ROW
				WHEN (OLD.status IS DISTINCT FROM NEW.status OR NEW.status IN ('SUCCEEDED', 'FAILED', 'CANCELLED'))
				EXECUTE FUNCTION %1$s.fault_audit_job()""".formatted(schema));
	}

}
