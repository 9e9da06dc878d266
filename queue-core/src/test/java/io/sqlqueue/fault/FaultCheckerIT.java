package io.sqlqueue.fault;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.sqlqueue.fault.FaultChecker.Check;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each of the {@link FaultChecker}'s checks turns red on a history that breaks it, and
 * stays green on the history next to it that does not: a checker that cannot fail proves
 * nothing. The histories are written by hand, as workers would leave them, with the
 * audit trigger recording them as it does in a real run; no worker process is needed.
 */
class FaultCheckerIT extends FaultScenario {

	@Test
	void cleanHistoryHasNoViolation() {
		long plain = job(FaultWorker.PLAIN);
		long tx = job(FaultWorker.TRANSACTIONAL);
		for (long id : List.of(plain, tx)) {
			claim(id, "w1");
			run(id, "w1");
			succeed(id);
		}
		stoppedWorker("w1", 0);
		assertThat(check(2).violations()).isEmpty();
	}

	@Test
	void jobNotSucceededOrMissingIsLost() {
		long id = job(FaultWorker.PLAIN);
		claim(id, "w1");
		run(id, "w1");
		assertThat(violations(1)).containsExactly(Check.LOST);
		succeed(id);
		assertThat(violations(2)).containsExactly(Check.LOST);
		assertThat(violations(1)).isEmpty();
	}

	@Test
	void finalStateWrittenAgainIsReported() {
		long id = job(FaultWorker.PLAIN);
		claim(id, "w1");
		run(id, "w1");
		succeed(id);
		assertThat(violations(1)).isEmpty();
		succeed(id);
		assertThat(violations(1)).containsExactly(Check.FINAL_TWICE);
	}

	@Test
	void transactionalJobWithTwoEffectsOrNoneIsReported() {
		long id = job(FaultWorker.TRANSACTIONAL);
		claim(id, "w1");
		run(id, "w1");
		succeed(id);
		assertThat(violations(1)).isEmpty();
		run(id, "w1");
		assertThat(violations(1)).contains(Check.TX_EFFECT);
		this.jdbc.update("DELETE FROM fault_effect");
		assertThat(violations(1)).containsExactly(Check.TX_EFFECT);
	}

	@Test
	void transactionalEffectOfAnAttemptThatDidNotCompleteIsReported() {
		long id = job(FaultWorker.TRANSACTIONAL);
		claim(id, "w1");
		run(id, "w1");
		takeBack(id);
		claim(id, "w2");
		succeed(id);
		assertThat(violations(1)).containsExactly(Check.TX_EFFECT);
	}

	@Test
	void plainJobRunAgainIsExplainedOnlyByAFaultedWorker() {
		long id = job(FaultWorker.PLAIN);
		claim(id, "w1");
		run(id, "w1");
		takeBack(id);
		claim(id, "w2");
		run(id, "w2");
		succeed(id);
		assertThat(violations(1)).containsExactly(Check.UNEXPLAINED_EXTRA);
		this.jdbc.update("INSERT INTO fault_event (kind, worker_id) VALUES ('kill', 'w1')");
		assertThat(violations(1)).isEmpty();
		run(id, "w2");
		assertThat(violations(1)).contains(Check.UNEXPLAINED_EXTRA);
	}

	@Test
	void runWithoutAClaimIsReported() {
		long id = job(FaultWorker.PLAIN);
		claim(id, "w1");
		run(id, "w2");
		succeed(id);
		assertThat(violations(1)).containsExactly(Check.UNCLAIMED_RUN);
	}

	@Test
	void lostLeaseOrUnreportedWorkerWithoutFaultIsReported() {
		long id = job(FaultWorker.PLAIN);
		claim(id, "w1");
		run(id, "w1");
		succeed(id);
		stoppedWorker("w1", 1);
		assertThat(violations(1)).containsExactly(Check.LEASE_LOST);
		this.jdbc.update("UPDATE fault_worker SET lease_losses = 0, stopped_at = NULL");
		assertThat(violations(1)).containsExactly(Check.LEASE_LOST);
		// A killed worker excuses lost leases: they are what it leaves behind.
		this.jdbc.update("INSERT INTO fault_event (kind, worker_id) VALUES ('kill', 'w2')");
		assertThat(violations(1)).isEmpty();
	}

	@Test
	void jobClaimedBeforeAFreezeAndStartedAfterItIsReported() {
		long before = job(FaultWorker.PLAIN);
		long after = job(FaultWorker.PLAIN);
		claim(before, "frozen");
		this.jdbc.update("INSERT INTO fault_event (kind, worker_id) VALUES ('freeze', 'frozen')");
		this.jdbc.update("INSERT INTO fault_event (kind, worker_id) VALUES ('resume', 'frozen')");
		claim(after, "frozen");
		run(after, "frozen");
		succeed(after);
		run(before, "frozen");
		succeed(before);
		assertThat(violations(2)).containsExactly(Check.STARTED_AFTER_FREEZE);
	}

	@Test
	void frozenWorkerRunningAgainMoreThanItCouldHoldIsReported() {
		int limit = FaultWorker.WORKERS + 2 * FaultWorker.COMPLETION_BATCH_SIZE;
		for (int i = 0; i <= limit; i++) {
			long id = job(FaultWorker.PLAIN);
			claim(id, "frozen");
			run(id, "frozen");
			takeBack(id);
			claim(id, "steady");
			run(id, "steady");
			succeed(id);
			if (i == limit - 1) {
				freezeAndResume("frozen");
				assertThat(violations(limit)).isEmpty();
				this.jdbc.update("DELETE FROM fault_event");
			}
		}
		freezeAndResume("frozen");
		assertThat(violations(limit + 1)).containsExactly(Check.FROZEN_EXTRAS);
	}

	private void freezeAndResume(String worker) {
		this.jdbc.update("INSERT INTO fault_event (kind, worker_id) VALUES ('freeze', ?)", worker);
		this.jdbc.update("INSERT INTO fault_event (kind, worker_id) VALUES ('resume', ?)", worker);
	}

	private List<Check> violations(int jobs) {
		return new FaultChecker(this.jdbc).check(jobs).violations().stream().map(FaultChecker.Violation::check)
			.toList();
	}

	private long job(String handler) {
		return this.jdbc.queryForObject("""
				INSERT INTO queue_job (queue, handler, payload, max_attempts) VALUES ('fault', ?, '{}', 20)
				RETURNING id""", Long.class, handler);
	}

	private void claim(long id, String worker) {
		this.jdbc.update("""
				UPDATE queue_job SET status = 'RUNNING', attempts = attempts + 1, lease_owner = ?,
				    lease_token = floor(random() * 1e15), lease_expires_at = now() + interval '1 minute'
				WHERE id = ?""", worker, id);
	}

	private void run(long id, String worker) {
		this.jdbc.update("""
				INSERT INTO fault_effect (job_id, worker_id, attempt, at)
				SELECT id, ?, attempts, clock_timestamp() FROM queue_job WHERE id = ?""", worker, id);
	}

	private void succeed(long id) {
		this.jdbc.update("UPDATE queue_job SET status = 'SUCCEEDED', finished_at = now() WHERE id = ?", id);
	}

	/** As the reaper does when the lease expired. */
	private void takeBack(long id) {
		this.jdbc.update("""
				UPDATE queue_job SET status = 'QUEUED', last_error = 'Lease expired before the attempt finished',
				    lease_expires_at = NULL
				WHERE id = ?""", id);
	}

	private void stoppedWorker(String worker, int leaseLosses) {
		this.jdbc.update("""
				INSERT INTO fault_worker (worker_id, pid, started_at, stopped_at, lease_losses)
				VALUES (?, 1, clock_timestamp(), clock_timestamp(), ?)""", worker, leaseLosses);
	}

}
