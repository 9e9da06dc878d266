package io.sqlqueue.fault;

import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Judges a fault run by the database alone: {@code queue_job}, the handlers' effects, the
 * audit trigger's record of every status change, the workers' reports and the faults the
 * test caused (see {@link FaultSchema}). It knows nothing of the worker processes; it
 * returns what it found wrong, and numbers to print.
 * <p>
 * A worker is <em>faulted</em> when the test killed or froze it; only such a worker's
 * jobs may run more than once, and only a plain handler's (a transactional handler's
 * effect commits with its completion, so exactly once under every fault). A run without a
 * faulted worker must run every job once and lose no lease.
 */
final class FaultChecker {

	/** What a violation breaks. */
	enum Check {

		/** Every job ends {@code SUCCEEDED}. */
		LOST,
		/** No job reaches a final state twice, or leaves one. */
		FINAL_TWICE,
		/** A transactional job has exactly one effect, of the attempt that completed it. */
		TX_EFFECT,
		/** A plain job runs again only after a faulted worker's lease on it was taken back. */
		UNEXPLAINED_EXTRA,
		/** A worker runs only jobs it claimed. */
		UNCLAIMED_RUN,
		/** Without a faulted worker, each worker stops cleanly and loses no lease. */
		LEASE_LOST,
		/** A frozen worker, once resumed, starts no job it claimed before the freeze. */
		STARTED_AFTER_FREEZE,
		/** A frozen worker's jobs run again at most once each of what it could have had in hand: a job per worker and a batch of successes. */
		FROZEN_EXTRAS

	}

	record Violation(Check check, String detail) {

		@Override
		public String toString() {
			return this.check + ": " + this.detail;
		}

	}

	record Report(List<Violation> violations, String numbers) {

		boolean has(Check check) {
			return this.violations.stream().anyMatch((violation) -> violation.check() == check);
		}

	}

	private static final String FINAL = "('SUCCEEDED', 'FAILED', 'CANCELLED')";

	private static final String FAULTED = "(SELECT worker_id FROM fault_event WHERE kind IN ('kill', 'freeze'))";

	/** A claim of this effect's job by this effect's worker for this attempt; {@code e} is the effect. */
	static final String CLAIM_OF_EFFECT = """
			SELECT 1 FROM fault_audit a
			WHERE a.job_id = e.job_id AND a.old_status = 'QUEUED' AND a.new_status = 'RUNNING'
			  AND a.new_owner = e.worker_id AND a.new_attempts = e.attempt""";

	/** A run of this effect's job by another worker; {@code e} is the effect. */
	private static final String RUN_BY_ANOTHER = """
			SELECT 1 FROM fault_effect o WHERE o.job_id = e.job_id AND o.worker_id <> e.worker_id""";

	private static final int EXAMPLES = 5;

	private final JdbcTemplate jdbc;

	/** @param jdbc on the run's schema (its search path) */
	FaultChecker(JdbcTemplate jdbc) {
		this.jdbc = jdbc;
	}

	Report check(int expectedJobs) {
		List<Violation> violations = new ArrayList<>();
		checkLost(expectedJobs, violations);
		report(violations, Check.FINAL_TWICE, "jobs reached a final state twice or left one", """
				SELECT 'job ' || job_id || ': ' || string_agg(old_status || '->' || new_status || ' ('
				       || coalesce(CASE WHEN new_status = 'RUNNING' THEN new_owner ELSE old_owner END, '-') || ')',
				       ', ' ORDER BY id)
				FROM fault_audit
				GROUP BY job_id
				HAVING count(*) FILTER (WHERE new_status IN %1$s) > 1 OR count(*) FILTER (WHERE old_status IN %1$s) > 0
				ORDER BY job_id""".formatted(FINAL));
		report(violations, Check.TX_EFFECT, "transactional jobs have other than one effect", """
				SELECT 'job ' || j.id || ': ' || count(e.id) || ' effects'
				FROM queue_job j LEFT JOIN fault_effect e ON e.job_id = j.id
				WHERE j.handler = '%s'
				GROUP BY j.id HAVING count(e.id) <> 1
				ORDER BY j.id""".formatted(FaultWorker.TRANSACTIONAL));
		report(violations, Check.TX_EFFECT, "transactional jobs have the effect of another attempt than the one "
				+ "that completed them", """
				SELECT 'job ' || j.id || ': effect of ' || e.worker_id || ' attempt ' || e.attempt
				       || ', completed by ' || coalesce(j.lease_owner, '-') || ' attempt ' || j.attempts
				FROM queue_job j JOIN fault_effect e ON e.job_id = j.id
				WHERE j.handler = '%s' AND j.status = 'SUCCEEDED'
				  AND (e.worker_id IS DISTINCT FROM j.lease_owner OR e.attempt <> j.attempts)
				ORDER BY j.id""".formatted(FaultWorker.TRANSACTIONAL));
		report(violations, Check.UNEXPLAINED_EXTRA, "plain jobs ran more often than faulted workers explain", """
				WITH runs AS (SELECT job_id, count(*) AS n FROM fault_effect GROUP BY job_id),
				     taken AS (SELECT job_id, count(*) AS n FROM fault_audit
				               WHERE old_status = 'RUNNING' AND new_status = 'QUEUED' AND old_owner IN %s
				               GROUP BY job_id)
				SELECT 'job ' || j.id || ': ran ' || coalesce(r.n, 0) || ' times, taken back from a faulted worker '
				       || coalesce(t.n, 0) || ' times'
				FROM queue_job j LEFT JOIN runs r ON r.job_id = j.id LEFT JOIN taken t ON t.job_id = j.id
				WHERE j.handler = '%s' AND j.status = 'SUCCEEDED'
				  AND (r.n IS NULL OR r.n > 1 + coalesce(t.n, 0))
				ORDER BY j.id""".formatted(FAULTED, FaultWorker.PLAIN));
		report(violations, Check.UNCLAIMED_RUN, "runs without a claim by their worker", """
				SELECT 'job ' || e.job_id || ' run by ' || e.worker_id || ' (attempt ' || e.attempt || ')'
				FROM fault_effect e
				WHERE NOT EXISTS (%s AND a.at <= e.at)
				ORDER BY e.id""".formatted(CLAIM_OF_EFFECT));
		checkWorkersWithoutFault(violations);
		checkFrozenWorkers(violations);
		return new Report(violations, numbers());
	}

	private void checkLost(int expectedJobs, List<Violation> violations) {
		int jobs = count("SELECT count(*) FROM queue_job");
		if (jobs != expectedJobs) {
			violations.add(new Violation(Check.LOST, "expected " + expectedJobs + " jobs, found " + jobs));
		}
		report(violations, Check.LOST, "jobs did not succeed", """
				SELECT 'job ' || id || ' ' || status || ' after ' || attempts || ' attempts'
				FROM queue_job WHERE status <> 'SUCCEEDED' ORDER BY id""");
	}

	/** With no worker killed or frozen, nothing excuses a lost lease or a worker that did not report. */
	private void checkWorkersWithoutFault(List<Violation> violations) {
		if (count("SELECT count(*) FROM " + FAULTED + " f") > 0) {
			return;
		}
		report(violations, Check.LEASE_LOST, "workers lost leases or did not stop cleanly, though no worker died",
				"""
						SELECT worker_id || CASE WHEN stopped_at IS NULL THEN ' did not stop cleanly'
						                         ELSE ' lost ' || lease_losses || ' leases' END
						FROM fault_worker WHERE stopped_at IS NULL OR lease_losses <> 0
						ORDER BY worker_id""");
	}

	private void checkFrozenWorkers(List<Violation> violations) {
		List<Map<String, Object>> freezes = this.jdbc.queryForList("""
				SELECT f.worker_id, min(r.at) AS resumed
				FROM fault_event f JOIN fault_event r ON r.worker_id = f.worker_id AND r.kind = 'resume' AND r.at > f.at
				WHERE f.kind = 'freeze'
				GROUP BY f.id, f.worker_id""");
		for (Map<String, Object> freeze : freezes) {
			String worker = (String) freeze.get("worker_id");
			Timestamp resumed = (Timestamp) freeze.get("resumed");
			// Every lease it held expired during the freeze (longer than the lease): a job it
			// starts after the freeze must be one it claimed after the freeze. A handler's start is
			// when it began (by the worker's clock), not when its first write landed, which a
			// freeze may have delayed.
			report(violations, Check.STARTED_AFTER_FREEZE, worker + " started jobs after it resumed that it had "
					+ "claimed before the freeze", """
					SELECT 'job ' || e.job_id || ' (attempt ' || e.attempt || ') at ' || COALESCE(e.started, e.at)
					FROM fault_effect e
					WHERE e.worker_id = ? AND COALESCE(e.started, e.at) > ? AND NOT EXISTS (%s AND a.at > ?)
					ORDER BY e.id""".formatted(CLAIM_OF_EFFECT), worker, resumed, resumed);
			report(violations, Check.STARTED_AFTER_FREEZE, worker + " ran jobs after it resumed that another worker "
					+ "ran too", """
					SELECT DISTINCT 'job ' || e.job_id FROM fault_effect e
					WHERE e.worker_id = ? AND COALESCE(e.started, e.at) > ? AND EXISTS (%s)""".formatted(RUN_BY_ANOTHER),
					worker, resumed);
			// In hand at the freeze (docs/guarantees.md, promise 1): a job per worker (running, or ended and
			// waiting for room to be recorded), and at most twice completion-batch-size successes waiting
			// to be recorded, which have no heartbeat. That was the ninth of nine in a run of the review.
			int limit = FaultWorker.WORKERS + 2 * FaultWorker.COMPLETION_BATCH_SIZE;
			int again = count("""
					SELECT count(DISTINCT e.job_id) FROM fault_effect e
					WHERE e.worker_id = ? AND e.at < ? AND EXISTS (%s)""".formatted(RUN_BY_ANOTHER),
					worker, resumed);
			if (again > limit) {
				violations.add(new Violation(Check.FROZEN_EXTRAS, again + " jobs that " + worker
						+ " ran before its freeze ran again; it could have had at most " + limit + " in hand"));
			}
		}
	}

	/** One violation summing up what {@code query} finds (one line per finding), with a few examples. */
	private void report(List<Violation> violations, Check check, String what, String query, Object... args) {
		List<String> found = this.jdbc.queryForList(query, String.class, args);
		if (!found.isEmpty()) {
			violations.add(new Violation(check, found.size() + " " + what + ", e.g. "
					+ String.join("; ", found.subList(0, Math.min(EXAMPLES, found.size())))));
		}
	}

	private String numbers() {
		return this.jdbc.queryForObject("""
				WITH runs AS (SELECT job_id, count(*) AS n FROM fault_effect GROUP BY job_id)
				SELECT 'jobs ' || (SELECT count(*) FROM queue_job)
				    || ', succeeded ' || (SELECT count(*) FROM queue_job WHERE status = 'SUCCEEDED')
				    || ', executions ' || (SELECT count(*) FROM fault_effect)
				    || ', extra executions plain ' || (SELECT coalesce(sum(r.n - 1), 0) FROM runs r
				           JOIN queue_job j ON j.id = r.job_id WHERE j.handler = '%s')
				    || ' tx ' || (SELECT coalesce(sum(r.n - 1), 0) FROM runs r
				           JOIN queue_job j ON j.id = r.job_id WHERE j.handler = '%s')
				    || ', reaped ' || (SELECT count(*) FROM fault_audit WHERE old_status = 'RUNNING'
				           AND new_status = 'QUEUED' AND last_error LIKE 'Lease expired%%')
				    || ', other returns to the queue ' || (SELECT count(*) FROM fault_audit
				           WHERE old_status = 'RUNNING' AND new_status = 'QUEUED'
				           AND (last_error IS NULL OR last_error NOT LIKE 'Lease expired%%'))
				    || ', lease losses ' || coalesce((SELECT string_agg(worker_id || '=' || coalesce(CAST(lease_losses
				           AS text), 'none reported'), ' ' ORDER BY worker_id) FROM fault_worker), '-')"""
			.formatted(FaultWorker.PLAIN, FaultWorker.TRANSACTIONAL), String.class);
	}

	private int count(String query, Object... args) {
		Integer count = this.jdbc.queryForObject(query, Integer.class, args);
		return (count != null) ? count : 0;
	}

}
