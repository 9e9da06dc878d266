package io.sqlqueue.fault;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A worker JVM killed with {@code kill -9} in the middle of a drain, three times, and
 * started again each time (a new instance, a new worker id): its jobs are reaped and run by
 * the others, none is lost or finished twice, and only the killed worker's jobs run twice.
 */
class WorkerCrashFaultIT extends FaultScenario {

	private static final int JOBS = 6_000;

	private static final int KILLS = 3;

	/** Runs a worker does in each life before it is killed: enough that it holds work in every state. */
	private static final int RUNS_BEFORE_KILL = 100;

	@Test
	void killedWorkersLoseNoJobAndOnlyTheirJobsRunAgain() throws Exception {
		enqueue(JOBS);
		startWorker("steady");
		WorkerProcess victim = startWorker("victim-1");
		List<Integer> queuedAtKills = new ArrayList<>();
		for (int kill = 1; kill <= KILLS; kill++) {
			WorkerProcess current = victim;
			awaitUntil(current + " runs jobs", Duration.ofSeconds(60),
					() -> effectsBy(current) >= RUNS_BEFORE_KILL && runningHeldBy(current) > 0);
			current.kill();
			event("kill", current);
			queuedAtKills.add(queued());
			// The next victim must find jobs left when its JVM is up.
			keepQueued(JOBS / 2);
			victim = startWorker("victim-" + (kill + 1));
		}
		awaitDrained(enqueued());
		stopWorkers();
		FaultChecker.Report report = check(enqueued());
		System.out.println("Jobs still queued at each kill: " + queuedAtKills);
		assertThat(queuedAtKills).as("jobs still queued at each kill (the kills hit a drain under way)")
			.allSatisfy((queued) -> assertThat(queued).isPositive());
		assertThat(report.violations()).isEmpty();
	}

}
