package io.sqlqueue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.sqlqueue.internal.manager.Manager;
import io.sqlqueue.internal.store.ClaimMethod;
import io.sqlqueue.internal.store.JobStore;
import io.sqlqueue.internal.store.dialect.Dialects;
import io.sqlqueue.test.TestDatabase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SqliteConformanceTests extends QueueConformanceTests {

	@Override
	protected TestDatabase database() {
		return TestDatabase.SQLITE;
	}

	private static String read(Path file) {
		try {
			return Files.readString(file);
		}
		catch (IOException ex) {
			return ex.toString();
		}
	}

	@Test
	void startUpLeavesTheFileInWalMode() {
		assertThat(this.fixture.jdbc().queryForObject("PRAGMA journal_mode", String.class)).isEqualTo("wal");
	}

	@Test
	void startUpRefusesAConnectionWithoutABusyTimeout() {
		String url = this.database.url().replace("busy_timeout=10000", "busy_timeout=0");
		try (HikariDataSource pool = new HikariDataSource()) {
			pool.setJdbcUrl(url);
			assertThatThrownBy(() -> Dialects.detect(pool)).hasMessageContaining("busy timeout")
				.hasMessageContaining("busy_timeout=");
		}
	}

	@Test
	void noClaimWithSkipLockedOnSqlite() {
		assertThatThrownBy(
				() -> new JobStore(this.database.dataSource(), this.database.dialect(), null, ClaimMethod.LOCK_THEN_UPDATE))
			.isInstanceOf(IllegalArgumentException.class);
	}

	/**
	 * An enqueue with {@code after} reads the jobs it runs after before it writes. A SQLite
	 * transaction that begins with a read cannot write once another connection has written
	 * since (SQLITE_BUSY at once, a WAL snapshot conflict the busy timeout does not help), so
	 * it takes the write lock first: every enqueue here succeeds while a Manager claims and
	 * completes jobs all along.
	 */
	@Test
	void enqueuesAfterOtherJobsSucceedWhileAManagerWrites() {
		handler("work", (payload, context) -> null);
		List<Job> backlog = new ArrayList<>();
		for (int i = 0; i < 3_000; i++) {
			backlog.add(Job.of("work", i));
		}
		List<Long> ids = this.fixture.queue().enqueueAll(backlog);
		this.fixture.startManager((s) -> s.defaultConcurrency(4));
		long previous = ids.get(0);
		int enqueued = 0;
		long deadline = System.nanoTime() + WAIT.toNanos();
		while (this.fixture.status(ids.get(ids.size() - 1)) != JobStatus.SUCCEEDED || enqueued < 200) {
			assertThat(System.nanoTime()).as("the backlog drained in time").isLessThan(deadline);
			previous = this.fixture.queue().enqueue(Job.of("work", null).after(previous, ids.get(enqueued % ids.size())));
			enqueued++;
		}
		long last = previous;
		org.awaitility.Awaitility.await()
			.atMost(WAIT)
			.pollInterval(Duration.ofMillis(20))
			.until(() -> this.fixture.status(last) == JobStatus.SUCCEEDED);
		assertThat(this.fixture.count("status <> 'SUCCEEDED'")).isZero();
	}

	/**
	 * Two JVMs on one file: this one runs a Manager, a second process claims with its own
	 * store ({@link SqliteSecondProcess}); every job runs once ({@code ran.job_id} is the key).
	 */
	@Test
	void aSecondProcessOnTheSameFileDrainsTheQueueWithThisOneEachJobOnce(@TempDir Path directory) throws Exception {
		int total = 600;
		this.fixture.jdbc().execute("CREATE TABLE ran (job_id BIGINT PRIMARY KEY, worker VARCHAR(128) NOT NULL)");
		handler("record", (payload, context) -> {
			this.fixture.jdbc().update("INSERT INTO ran (job_id, worker) VALUES (?, ?)", context.jobId(), "process-1");
			return null;
		});
		List<Job> jobs = new ArrayList<>();
		for (int i = 0; i < total; i++) {
			jobs.add(Job.of("record", i));
		}
		this.fixture.queue().enqueueAll(jobs);
		String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
		Process second = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
				SqliteSecondProcess.class.getName(), this.database.url(), String.valueOf(total))
			.redirectErrorStream(true)
			.redirectOutput(directory.resolve("second-process.log").toFile())
			.start();
		try {
			// Start this side once the other claims, so that both surely take part.
			org.awaitility.Awaitility.await()
				.atMost(WAIT)
				.pollInterval(Duration.ofMillis(20))
				.until(() -> !second.isAlive() || this.fixture.jdbc()
					.queryForObject("SELECT COUNT(*) FROM ran WHERE worker = 'process-2'", Integer.class) > 0);
			Manager first = this.fixture.startManager((s) -> s.workerId("process-1").defaultConcurrency(4));
			assertThat(second.waitFor(2, TimeUnit.MINUTES)).isTrue();
			assertThat(second.exitValue()).as(() -> read(directory.resolve("second-process.log"))).isZero();
			org.awaitility.Awaitility.await()
				.atMost(WAIT)
				.pollInterval(Duration.ofMillis(100))
				.until(() -> this.fixture.count("status = 'SUCCEEDED'") == total);
			first.stop();
		}
		finally {
			second.destroyForcibly();
		}
		assertThat(this.fixture.jdbc().queryForObject("SELECT COUNT(*) FROM ran", Integer.class)).isEqualTo(total);
		assertThat(this.fixture.count("status <> 'SUCCEEDED' OR attempts <> 1")).isZero();
		assertThat(this.fixture.jdbc().queryForObject("SELECT COUNT(*) FROM ran WHERE worker = 'process-1'",
				Integer.class)).isPositive();
		assertThat(this.fixture.jdbc().queryForObject("SELECT COUNT(*) FROM ran WHERE worker = 'process-2'",
				Integer.class)).isPositive();
	}

}
