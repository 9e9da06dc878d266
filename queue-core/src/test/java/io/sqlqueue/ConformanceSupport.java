package io.sqlqueue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import io.sqlqueue.handler.HandlerDefinition;
import io.sqlqueue.handler.JobInvoker;
import io.sqlqueue.internal.flow.DefaultFlowControl;
import io.sqlqueue.internal.store.ClaimMethod;
import io.sqlqueue.internal.store.ClaimRequest;
import io.sqlqueue.internal.store.Completion;
import io.sqlqueue.internal.store.Dialect;
import io.sqlqueue.internal.store.Lease;
import io.sqlqueue.test.QueueFixture;
import io.sqlqueue.test.TestDatabase;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * What the conformance tests of every entity share: the test's fixture and database, and the
 * few helpers their tests call. Each entity's tests are default methods of an interface that
 * extends this one ({@link EnqueueConformance}, {@link ClaimConformance} ...);
 * {@link QueueConformanceTests} implements them all and gives each test a fresh database, so
 * each of its subclasses runs every entity's tests on its own database and claim method. A
 * helper that one entity alone needs stays a private method of its interface.
 */
interface ConformanceSupport {

	/** How long a test waits for what the queue does on its own threads. */
	Duration WAIT = Duration.ofSeconds(30);

	/** How long a test waits for work spread over several instances to settle. */
	Duration SETTLE_WAIT = Duration.ofSeconds(60);

	tools.jackson.databind.json.JsonMapper JSON = tools.jackson.databind.json.JsonMapper.builder().build();

	/** The queue wired by hand on this test's database. */
	QueueFixture fixture();

	/** This test's own database (or schema, or file). */
	TestDatabase.Isolated isolatedDatabase();

	/** Registers {@code invoker} as handler {@code name} of the default queue. */
	default void handler(String name, JobInvoker invoker) {
		fixture().register(HandlerDefinition.of(name, "default", invoker));
	}

	/** Registers a transactional handler: its writes commit with its job's completion. */
	default void transactionalHandler(String name, JobInvoker invoker) {
		fixture().register(new HandlerDefinition(name, "default", null, null, java.util.Set.of(), invoker, name, true));
	}

	/** Registers a handler of one attempt that always fails. */
	default void failingHandler(String name) {
		fixture().register(new HandlerDefinition(name, "default", 1, null, java.util.Set.of(), (payload, context) -> {
			throw new IllegalStateException(name + " breaks");
		}, name));
	}

	default void awaitStatus(long id, JobStatus status) {
		awaitStatus(id, status, WAIT);
	}

	default void awaitStatus(long id, JobStatus status, Duration within) {
		await().atMost(within).pollInterval(Duration.ofMillis(20)).until(() -> fixture().status(id) == status);
	}

	/** Claims up to {@code limit} jobs of {@code queue} as worker "test-worker", leased for 30 s. */
	default List<JobRecord> claim(String queue, int limit, String... handlers) {
		return fixture().store().claim(new ClaimRequest("test-worker", queue, List.of(handlers), limit, 30_000));
	}

	/** Claims up to 100 jobs of the default queue as worker "test", leased for 30 s. */
	default List<JobRecord> claimAll(String... handlers) {
		return fixture().store().claim(new ClaimRequest("test", "default", List.of(handlers), 100, 30_000));
	}

	/** The success of a claimed job, without a result. */
	default Completion success(JobRecord job) {
		return new Completion(new Lease(job.id(), job.leaseToken()), null);
	}

	/** {@code name}, in this test's schema where it has one. */
	default String table(String name) {
		String schema = isolatedDatabase().schema();
		return (schema != null) ? schema + "." + name : name;
	}

	/**
	 * The database's clock now: the clock the queue's times (run_at, declared_until ...) are
	 * written and compared by, for a test that waits until one of them has passed.
	 */
	default Instant databaseNow() {
		Dialect dialect = isolatedDatabase().dialect();
		return fixture().jdbc().queryForObject("SELECT " + dialect.currentTime() + " AS db_now",
				(rs, row) -> dialect.getTimestamp(rs, "db_now"));
	}

	/** Waits until the database's clock is past {@code instant}. */
	default void awaitDatabaseClockPast(Instant instant) {
		await().atMost(WAIT).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(2))
			.until(() -> databaseNow().isAfter(instant));
	}

	/**
	 * Keeps the declarations of two instances of flow control, {@code older} refreshing every
	 * {@code olderRefresh}, until a declaration that {@code older} alone had kept from now on would
	 * have lapsed (three of its refreshes, by the database's clock), and once more after that: a
	 * limit or turns that {@code older} must leave in force are still there after refreshes
	 * that would have removed them had {@code older} judged them by its own lifetime.
	 */
	default void keepBothPastTheOlderOnesLapse(DefaultFlowControl older, DefaultFlowControl newer,
			Duration olderRefresh) {
		Instant lapsed = databaseNow().plus(olderRefresh.multipliedBy(3));
		await().atMost(WAIT).pollInterval(olderRefresh).until(() -> {
			boolean past = databaseNow().isAfter(lapsed);
			older.keepDeclarations();
			newer.keepDeclarations();
			return past;
		});
	}

	/** Skips a test of row locks on a database without them. */
	default void assumeRowLocks() {
		assumeTrue(isolatedDatabase().dialect().supports(ClaimMethod.LOCK_THEN_UPDATE),
				"SQLite has no row locks: an open write transaction holds the whole database, bounded by the busy timeout");
	}

	default void sleepQuietly(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/** A payload type of handler methods. */
	record Greeting(String name, int times) {
	}

	/** A handler method that takes a {@link Greeting}, and counts its calls. */
	final class Greeter {

		final AtomicInteger calls = new AtomicInteger();

		String greet(Greeting greeting, JobContext context) {
			this.calls.incrementAndGet();
			return "Hello " + greeting.name() + " x" + greeting.times() + " (job " + context.jobId() + ")";
		}

	}

}
