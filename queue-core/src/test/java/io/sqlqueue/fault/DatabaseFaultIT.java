package io.sqlqueue.fault;

import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import io.sqlqueue.test.EmbeddedPostgres;
import io.sqlqueue.test.EmbeddedServers;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The database lost under live workers: their connections terminated by the server, or the
 * server restarted. No worker dies, so nothing excuses a second run: every job runs exactly
 * once, and no worker reports a lost lease (a completion that committed but whose answer
 * was lost must not be taken for one).
 */
class DatabaseFaultIT extends FaultScenario {

	private static final int JOBS = 4_000;

	private static final int TERMINATIONS = 3;

	/**
	 * Longer than the three tries (0.5, 2, 5 s) that once gave up on a finished job's record,
	 * with the workers' pools waiting a second for a connection (a pool's wait counts in the tries).
	 */
	private static final Duration OUTAGE = Duration.ofSeconds(15);

	private PostgresServer.Restartable cluster;

	private EmbeddedPostgres stopped;

	@AfterEach
	void leaveTheServerRunning() {
		if (this.cluster != null) {
			this.cluster.ensureRunning();
		}
		if (this.stopped != null) {
			this.stopped.ensureRunning();
		}
	}

	@Test
	void terminatedConnectionsLoseNoJobAndRunEachJobOnce() throws Exception {
		enqueue(JOBS);
		startWorker("a");
		startWorker("b");
		int terminated = 0;
		for (int round = 1; round <= TERMINATIONS; round++) {
			int runs = round * JOBS / (TERMINATIONS + 2);
			awaitUntil(runs + " runs", DRAIN_WAIT, () -> effects() >= runs);
			event("terminate", null);
			terminated += PostgresServer.terminateBackends(this.jdbc, applicationNamePrefix());
		}
		assertThat(terminated).as("connections terminated").isPositive();
		awaitDrained(JOBS);
		stopWorkers();
		assertThat(check(JOBS).violations()).isEmpty();
	}

	/**
	 * A restart ends every session at once, commits in flight included. The lease is longer
	 * here than the restart takes, as it must be for any worker to keep its jobs through an
	 * outage: one longer than the lease is a crash as far as the queue can tell.
	 */
	@Test
	void restartedServerLosesNoJobAndRunsEachJobOnce() throws Exception {
		this.cluster = PostgresServer.restartableOrSkip(this.database.url());
		enqueue(JOBS);
		startWorker("a", "lease-ms=15000");
		startWorker("b", "lease-ms=15000");
		awaitUntil("a quarter of the jobs run", DRAIN_WAIT, () -> effects() >= JOBS / 4);
		// Counted before: right after a quick restart this pool may still hold a dead connection.
		long queued = queued();
		event("restart", null);
		long started = System.nanoTime();
		this.cluster.restart();
		System.out.println("PostgreSQL restarted in " + Duration.ofNanos(System.nanoTime() - started).toMillis()
				+ " ms, " + queued + " jobs queued at the restart");
		awaitDrained(JOBS);
		stopWorkers();
		assertThat(check(JOBS).violations()).isEmpty();
	}

	/**
	 * The database away for longer than a fixed few tries of a finished job's record would
	 * wait (as an HA tool's failover takes half a minute), but shorter than the leases: every
	 * outcome is written once the database is back, and no job runs again. The embedded
	 * server only: the machine's own is never stopped.
	 */
	@Test
	void outageLongerThanEightSecondsButShorterThanTheLeaseRunsNoJobAgain() throws Exception {
		EmbeddedPostgres server = EmbeddedServers.postgresAt(this.database.url());
		Assumptions.assumeTrue(server != null,
				"The outage is made by stopping the embedded server (SQLQUEUE_TEST_DATABASES=embedded)");
		enqueue(JOBS);
		startWorker("a", "lease-ms=40000", "connection-timeout-ms=1000");
		startWorker("b", "lease-ms=40000", "connection-timeout-ms=1000");
		awaitUntil("a quarter of the jobs run", DRAIN_WAIT, () -> effects() >= JOBS / 4);
		event("stop", null);
		this.stopped = server;
		server.stop();
		long stoppedAt = System.nanoTime();
		// The outage is the fault itself: it lasts its length, whatever the workers do meanwhile.
		poll("an outage of " + OUTAGE, OUTAGE.plusSeconds(30))
			.pollDelay(OUTAGE)
			.until(() -> System.nanoTime() - stoppedAt >= OUTAGE.toNanos());
		server.ensureRunning();
		System.out.println("PostgreSQL was stopped for " + Duration.ofNanos(System.nanoTime() - stoppedAt).toMillis()
				+ " ms");
		awaitDrained(JOBS);
		stopWorkers();
		assertThat(check(JOBS).violations()).isEmpty();
	}

}
