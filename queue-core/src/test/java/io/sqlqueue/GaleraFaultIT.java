package io.sqlqueue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;
import org.junit.jupiter.api.parallel.ResourceLock;

import io.sqlqueue.handler.HandlerDefinition;
import io.sqlqueue.internal.maintenance.Reaper;
import io.sqlqueue.internal.manager.Manager;
import io.sqlqueue.internal.store.LostRaces;
import io.sqlqueue.test.GaleraNodes;
import io.sqlqueue.test.QueueFixture;
import io.sqlqueue.test.TestDatabase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A Galera node killed ({@code kill -9}) mid-drain, an instance on each node: the instance of
 * the killed node goes on through the next node of its URL ({@code jdbc:mariadb:sequential://}
 * its own node first), the others never stop. No job is lost, and none runs again but those
 * the killed node's instance had in hand. Needs the cluster of {@code .ci/galera} on this
 * machine (it kills and restarts node 3 through that script).
 * <p>
 * Opt-in ({@code SQLQUEUE_TEST_GALERA_FAULT=1}), so not in {@code ./mvnw verify} or CI: on this
 * machine a surviving node's memory sometimes runs away after the kill (past 20 GiB, or to its
 * 3 GiB cap, where it crashes), which takes the cluster down with it; the cause is not found.
 */
@EnabledIfEnvironmentVariable(named = "SQLQUEUE_TEST_GALERA_FAULT", matches = "1",
		disabledReason = "opt-in: SQLQUEUE_TEST_GALERA_FAULT=1 (a surviving node's memory may run away, see the class)")
@ResourceLock(TestDatabase.GALERA_SERVER)
class GaleraFaultIT {

	private static final int JOBS = 3_000;

	private static final int WORKERS = 8;

	private static final Path SCRIPT = Path.of("..", ".ci", "galera");

	private TestDatabase.Isolated database;

	private QueueFixture fixture;

	/** Whether this test killed node 3, which then must run again for the tests after it. */
	private boolean killed;

	@BeforeEach
	void setUp() {
		this.database = TestDatabase.GALERA.isolated();
		this.fixture = new QueueFixture(this.database, TestDatabase.GALERA.dialect().claimMethod(),
				new PayloadCodec(tools.jackson.databind.json.JsonMapper.builder().build(), 4096));
	}

	@AfterEach
	void tearDown() throws Exception {
		try {
			if (this.killed) {
				startNode(3);
			}
		}
		finally {
			if (this.fixture != null) {
				this.fixture.close();
			}
			if (this.database != null) {
				this.database.close();
			}
		}
	}

	@Test
	void aNodeKilledMidDrainLosesNoJob() throws Exception {
		Map<Integer, AtomicInteger> runs = new ConcurrentHashMap<>();
		Queue<Long> starts = new ConcurrentLinkedQueue<>();
		this.fixture.register(HandlerDefinition.of("work", "default", (payload, context) -> {
			starts.add(System.nanoTime());
			runs.computeIfAbsent(Integer.parseInt(payload.trim()), (id) -> new AtomicInteger()).incrementAndGet();
			// The job's work (2 ms), so that the kill finds jobs in hand; no wait of the test's.
			Thread.sleep(2);
			return null;
		}));
		for (int from = 0; from < JOBS; from += 500) {
			this.fixture.queue().enqueueAll(IntStream.range(from, from + 500).mapToObj((i) -> Job.of("work", i)).toList());
		}
		long racesBefore = LostRaces.retried();
		List<HikariDataSource> pools = new ArrayList<>();
		try {
			List<String> nodes = GaleraNodes.all();
			List<Manager> instances = new ArrayList<>();
			for (int node = 0; node < 3; node++) {
				// Each instance's own node first, then the next: as an application beside each node would.
				String url = "jdbc:mariadb:sequential://" + nodes.get(node) + "," + nodes.get((node + 1) % 3) + "/"
						+ this.database.schema();
				HikariDataSource pool = new HikariDataSource();
				pool.setJdbcUrl(url);
				pool.setUsername(this.database.user());
				pool.setPassword(this.database.password());
				pool.setMaximumPoolSize(WORKERS + 4);
				pool.setConnectionTimeout(5_000);
				pools.add(pool);
				instances.add(this.fixture.startInstance((s) -> s.defaultConcurrency(WORKERS)
					.leaseDuration(Duration.ofSeconds(10)), pool));
			}
			// As every deployment runs one: jobs whose ends an instance could not record (its node
			// gone, the cluster waiting out the node's timeout) go back to the queue after their leases.
			Reaper reaper = new Reaper(this.fixture.store(), this.fixture.scheduler(), Duration.ofSeconds(1));
			reaper.start();
			await().atMost(Duration.ofMinutes(2)).until(() -> runs.size() >= JOBS / 3);
			long killedAt = System.nanoTime();
			this.killed = true;
			ProcessHandle node = ProcessHandle.of(pidOf(3))
				.orElseThrow(() -> new IllegalStateException("Galera node 3 does not run here"));
			assertThat(node.destroyForcibly()).as("SIGKILL sent to node 3").isTrue();
			await().atMost(Duration.ofSeconds(10)).until(() -> !node.isAlive());
			int ranBefore = runs.size();
			await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(100))
				.until(() -> this.fixture.count("status = 'SUCCEEDED'") == JOBS);
			long drainedAfter = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
			instances.forEach(Manager::stop);
			reaper.stop();
			long extra = runs.values().stream().mapToInt(AtomicInteger::get).filter((n) -> n > 1).map((n) -> n - 1)
				.sum();
			System.out.printf("Galera node 3 killed after %d of %d jobs ran: no job started for %d ms, drained %d ms "
					+ "later, %d extra runs, %d lost races tried again%n", ranBefore, JOBS,
					longestPause(starts, killedAt), drainedAfter, extra, LostRaces.retried() - racesBefore);
			assertThat(runs).as("every job ran").hasSize(JOBS);
			// At most what the killed node's instance had in hand: its workers' jobs and a claim ahead.
			assertThat(extra).as("extra runs").isLessThanOrEqualTo(2 * WORKERS);
		}
		finally {
			pools.forEach(HikariDataSource::close);
		}
	}

	/** The longest time, in milliseconds, without a job started on any instance, from {@code since}. */
	private static long longestPause(Queue<Long> starts, long since) {
		List<Long> times = new ArrayList<>(starts);
		times.add(since);
		times.sort(null);
		long longest = 0;
		for (int i = times.indexOf(since) + 1; i < times.size(); i++) {
			longest = Math.max(longest, times.get(i) - times.get(i - 1));
		}
		return TimeUnit.NANOSECONDS.toMillis(longest);
	}

	private static long pidOf(int node) throws IOException {
		Path directory = Path.of(System.getenv().getOrDefault("SQLQUEUE_GALERA_DIR", "/tmp/sqlqueue-galera"));
		return Long.parseLong(Files.readString(directory.resolve("node" + node).resolve("mariadbd.pid")).trim());
	}

	/** Starts the node again (it rejoins by IST), unless it runs. */
	private static void startNode(int node) throws IOException, InterruptedException {
		Process start = new ProcessBuilder(SCRIPT.toString(), "start-node", String.valueOf(node)).inheritIO().start();
		if (!start.waitFor(3, TimeUnit.MINUTES) || start.exitValue() != 0) {
			throw new IllegalStateException("Could not start Galera node " + node + " again with " + SCRIPT);
		}
	}

}
