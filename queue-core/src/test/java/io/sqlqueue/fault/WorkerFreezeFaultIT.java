package io.sqlqueue.fault;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A worker JVM frozen ({@code SIGSTOP}) for longer than its lease while the other takes
 * over its jobs, then thawed ({@code SIGCONT}) — a long GC pause or a suspended VM. What
 * it does when it wakes up must change nothing: every late write is fenced, no job
 * changes state twice, and it starts none of the jobs it had claimed but not started.
 * The same run with the fence taken out shows that the checker sees the difference. A
 * worker frozen while its open transaction locks a job's row must not keep the others from
 * its other jobs.
 */
class WorkerFreezeFaultIT extends FaultScenario {

	private static final int JOBS = 3_000;

	/** Enqueued after the thaw, so that the thawed worker finds work again. */
	private static final int SECOND_WAVE = 600;

	/** Past the 3 s lease, and past the reaper's next pass after that. */
	private static final Duration FREEZE = Duration.ofSeconds(10);

	/** The other worker drains all jobs alone within this, reaped ones last. */
	private static final Duration TAKE_OVER_WAIT = Duration.ofSeconds(60);

	@Test
	void frozenWorkerIsFencedAndStartsNoJobItClaimedBeforeTheFreeze() throws Exception {
		enqueue(JOBS);
		startWorker("steady");
		WorkerProcess frozen = startWorker("frozen");
		freezeHoldingNoRowLock(frozen, () -> effectsBy(frozen) >= 100 && runningHeldBy(frozen) > 0);
		keepFrozenWhileOthersTakeOver(frozen);
		enqueue(SECOND_WAVE);
		awaitDrained(JOBS + SECOND_WAVE);
		stopWorkers();
		assertThat(check(JOBS + SECOND_WAVE).violations()).isEmpty();
	}

	/**
	 * The checker's own test: a frozen worker whose completions are not fenced
	 * ({@link UnfencedJobStore}) finishes jobs again that the other worker finished while it
	 * was frozen. Its transactional handler is slow, so that it is surely in the middle of
	 * some when it freezes.
	 */
	@Test
	void checkerSeesTheLateWritesOfAFrozenWorkerWithoutFence() throws Exception {
		enqueue(JOBS);
		startWorker("steady");
		WorkerProcess frozen = startWorker("unfenced", "unfenced=true", "tx-sleep-ms=200");
		freezeHoldingNoRowLock(frozen, () -> effectsBy(frozen) >= 50 && openTransactionsOf(frozen) >= 3);
		keepFrozenWhileOthersTakeOver(frozen);
		awaitDrained(JOBS);
		// A clean stop waits for the thawed handlers and their (unfenced) completions.
		stopWorkers();
		FaultChecker.Report report = check(JOBS);
		assertThat(report.has(FaultChecker.Check.FINAL_TWICE)).as("final state twice reported").isTrue();
		assertThat(report.has(FaultChecker.Check.TX_EFFECT)).as("two effects of a transactional job reported")
			.isTrue();
	}

	/**
	 * A frozen worker may be caught between its completion's {@code UPDATE} and its
	 * {@code COMMIT}: that job's row stays locked until it thaws, and nobody can or should
	 * take it. That must not keep the others from taking over every other job it held.
	 */
	@Test
	void rowLockedByAFrozenWorkerKeepsNoOtherOfItsJobsFromTheOthers() throws Exception {
		enqueue(JOBS);
		startWorker("steady");
		WorkerProcess frozen = startWorker("frozen-in-commit", "pause-before-commit-ms=300");
		awaitUntil(frozen + " is committing", Duration.ofSeconds(60), () -> {
			keepQueued(JOBS / 2);
			return effectsBy(frozen) >= 50 && uncommittedCompletionsOf(frozen) >= 1;
		});
		frozen.freeze();
		assertThat(rowsLockedBy(frozen)).as("rows locked by %s frozen", frozen).isPositive();
		keepFrozenWhileOthersTakeOver(frozen);
		awaitDrained(enqueued());
		stopWorkers();
		assertThat(check(enqueued()).violations()).isEmpty();
	}

	/**
	 * Freezes the worker once {@code ready}, at a moment when it holds no row lock (between a
	 * write and its commit): a locked row cannot be taken over, which is another test's
	 * subject. A freeze that caught a lock is thawed at once and tried again; so short a pause
	 * (far shorter than the lease) changes nothing for the run.
	 */
	private void freezeHoldingNoRowLock(WorkerProcess worker, Callable<Boolean> ready) {
		for (int tries = 1;; tries++) {
			awaitUntil(worker + " is busy", Duration.ofSeconds(60), ready);
			worker.freeze();
			// Statements it sent just before are carried out by the server regardless.
			awaitUntil("statements of " + worker + " done", Duration.ofSeconds(10),
					() -> count("SELECT count(*) FROM pg_stat_activity WHERE application_name = ? AND state = 'active'",
							worker.id()) == 0);
			if (rowsLockedBy(worker) == 0) {
				System.out.println("Froze " + worker + " holding no row lock at try " + tries);
				return;
			}
			worker.resume();
			assertThat(tries).as("tries to freeze %s while it holds no row lock", worker).isLessThan(50);
		}
	}

	/**
	 * Keeps the frozen worker frozen for at least {@link #FREEZE} and until every job it held
	 * has been finished by another (but those whose row its own open transaction locks), then
	 * thaws it. The checker learns both moments from {@code fault_event}.
	 */
	private void keepFrozenWhileOthersTakeOver(WorkerProcess worker) {
		long frozenAt = System.nanoTime();
		event("freeze", worker);
		List<Long> held = this.jdbc.queryForList(
				"SELECT id FROM queue_job WHERE status = 'RUNNING' AND lease_owner = ?", Long.class, worker.id());
		assertThat(held).as("jobs %s held when it froze", worker).isNotEmpty();
		String ids = held.stream().map(String::valueOf).collect(Collectors.joining(", "));
		awaitUntil("the jobs of " + worker + " finished by another", TAKE_OVER_WAIT,
				() -> System.nanoTime() - frozenAt >= FREEZE.toNanos() && count("""
						SELECT count(*) FROM queue_job j
						WHERE j.id IN (%s) AND j.status <> 'SUCCEEDED'
						  AND NOT EXISTS (SELECT 1 FROM pg_stat_activity a
						                  WHERE a.application_name = ? AND a.backend_xid = j.xmax)"""
					.formatted(ids), worker.id()) == 0);
		event("resume", worker);
		worker.resume();
	}

	/** Rows of the queue's table that an open transaction of the worker has updated (their xmax is its id). */
	private int rowsLockedBy(WorkerProcess worker) {
		return count("""
				SELECT count(*) FROM queue_job j JOIN pg_stat_activity a ON a.backend_xid = j.xmax
				WHERE a.application_name = ?""", worker.id());
	}

	private int uncommittedCompletionsOf(WorkerProcess worker) {
		return count("""
				SELECT count(*) FROM pg_stat_activity
				WHERE application_name = ? AND state = 'idle in transaction' AND query LIKE 'UPDATE %queue_job%'""",
				worker.id());
	}

	private int openTransactionsOf(WorkerProcess worker) {
		return count("""
				SELECT count(*) FROM pg_stat_activity WHERE application_name = ? AND state = 'idle in transaction'""",
				worker.id());
	}

}
