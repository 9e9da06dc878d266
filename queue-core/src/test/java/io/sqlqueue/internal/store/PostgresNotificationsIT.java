package io.sqlqueue.internal.store;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import io.sqlqueue.Job;
import io.sqlqueue.JobListener;
import io.sqlqueue.JobQueue;
import io.sqlqueue.JobResult;
import io.sqlqueue.JobStatus;
import io.sqlqueue.PayloadCodec;
import io.sqlqueue.flow.FlowControl;
import io.sqlqueue.flow.Limit;
import io.sqlqueue.handler.HandlerDefinition;
import io.sqlqueue.internal.DefaultJobQueue;
import io.sqlqueue.internal.await.JobAwaiter;
import io.sqlqueue.internal.flow.DefaultFlowControl;
import io.sqlqueue.internal.flow.FlowClaim;
import io.sqlqueue.internal.handler.HandlerRegistry;
import io.sqlqueue.internal.manager.Manager;
import io.sqlqueue.internal.store.postgresql.PostgresNotifications;
import io.sqlqueue.test.QueueFixture;
import io.sqlqueue.test.TestDatabase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Through LISTEN/NOTIFY, long before any poll or heartbeat: an enqueue on one instance wakes
 * the idle Manager of another, a job finished on one completes its waiter on another, a
 * cancel asked on one stops the job another runs, and a limit removed on one lets another
 * start the jobs it held back; the listener survives losing its connection.
 */
@ResourceLock(TestDatabase.POSTGRESQL_SERVER)
class PostgresNotificationsIT {

	private static final Duration LONG_POLL = Duration.ofMinutes(2);

	private TestDatabase.Isolated database;

	private QueueFixture fixture;

	/** The running instance's notifications. */
	private PostgresNotifications notifications;

	/** The producing instance's notifications, which tell its awaiter of finished jobs. */
	private PostgresNotifications producerNotifications;

	/** Another instance: it enqueues, awaits and cancels; it runs nothing. */
	private JobQueue producer;

	private JobAwaiter producerAwaiter;

	@BeforeEach
	void setUp() {
		this.database = TestDatabase.POSTGRESQL.isolated();
		this.fixture = new QueueFixture(this.database, ClaimMethod.UPDATE_RETURNING, new PayloadCodec());
		String channel = PostgresNotifications.channel(this.database.schema());
		PayloadCodec codec = new PayloadCodec();
		JobStore producerStore = notifyingStore(channel);
		// Reads once when a job is awaited, then not for an hour: only a notification completes it in time.
		this.producerAwaiter = new JobAwaiter(producerStore, codec, Duration.ofHours(1), Duration.ofHours(1));
		this.producer = new DefaultJobQueue(producerStore, codec, new HandlerRegistry(), QueueFixture.FAST_RETRIES,
				JobListener.NONE, this.producerAwaiter);
		this.fixture.register(HandlerDefinition.of("work", "default", (payload, context) -> "done"));
		this.fixture.register(HandlerDefinition.of("order", "default",
				(payload, context) -> context.awaitSignal("payment", String.class, Duration.ofHours(1)).orElseThrow()));
		this.fixture.register(HandlerDefinition.of("block", "default", (payload, context) -> {
			Thread.sleep(LONG_POLL.toMillis());
			return null;
		}));
		// Polls, heartbeats and reads all far apart: what happens in time happens by notification.
		Manager idle = this.fixture.startManager(notifyingStore(channel),
				QueueFixture.fastSettings().pollInterval(LONG_POLL).leaseDuration(Duration.ofMinutes(30)).build(), 8);
		this.notifications = new PostgresNotifications(this.database.dataSource(), channel, new QueueEvents() {
			@Override
			public void newWork(Set<String> queues) {
				idle.wakeUp(queues);
			}

			@Override
			public void cancelRequested(Set<Long> jobIds) {
				idle.cancelRequested(jobIds);
			}
		}, new SimpleAsyncTaskExecutor("test-listen-"));
		this.producerNotifications = new PostgresNotifications(this.database.dataSource(), channel,
				this.producerAwaiter, new SimpleAsyncTaskExecutor("test-listen-producer-"));
		this.notifications.start();
		this.producerNotifications.start();
		await().atMost(Duration.ofSeconds(30)).until(this.notifications::isListening);
		await().atMost(Duration.ofSeconds(30)).until(this.producerNotifications::isListening);
	}

	private JobStore notifyingStore(String channel) {
		return new JobStore(this.database.dataSource(), this.database.dialect(), this.database.schema(),
				ClaimMethod.UPDATE_RETURNING, channel, FlowClaim::new);
	}

	@AfterEach
	void tearDown() throws Exception {
		this.notifications.stop();
		this.producerNotifications.stop();
		this.producerAwaiter.close();
		this.fixture.close();
		this.database.close();
	}

	/** A limit changed on one instance wakes the idle Manager of another, so the jobs it held back start. */
	@Test
	void aLimitRemovedOnOneInstanceLetsAnotherStartTheJobsItHeldBackAtOnce() {
		FlowControl elsewhere = new DefaultFlowControl(new FlowStore(this.database.dataSource(), this.database.dialect(),
				this.database.schema(), PostgresNotifications.channel(this.database.schema())));
		elsewhere.setLimit("default", Limit.concurrency(1));
		List<Long> ids = this.producer.enqueueAll(List.of(Job.of("block", 1), Job.of("block", 2)));
		try {
			await().atMost(Duration.ofSeconds(10)).until(() -> this.fixture.count("status = 'RUNNING'") == 1);
			await().pollDelay(Duration.ofMillis(300)).until(() -> true);
			assertThat(this.fixture.count("status = 'RUNNING'")).isEqualTo(1);
			elsewhere.removeLimit("default");
			await().atMost(Duration.ofSeconds(10)).until(() -> this.fixture.count("status = 'RUNNING'") == 2);
		}
		finally {
			ids.forEach(this.producer::cancel);
		}
		await().atMost(Duration.ofSeconds(10)).until(() -> this.fixture.count("status = 'CANCELLED'") == 2);
	}

	/**
	 * A signal sent on one instance wakes the job parked for it, and the idle Manager of another
	 * instance hears of it at once (not at its poll, two minutes away), resumes the job and
	 * hands it the signal.
	 */
	@Test
	void aSignalSentOnOneInstanceResumesTheParkedJobOnAnotherAtOnce() throws Exception {
		await().pollDelay(Duration.ofMillis(300)).until(() -> true);
		long id = this.producer.enqueue("order", null);
		await().atMost(LONG_POLL.dividedBy(4))
			.until(() -> this.producer.steps(id).stream().anyMatch((step) -> step.kind() == io.sqlqueue.JobStep.Kind.SIGNAL)
					&& this.fixture.status(id) == JobStatus.QUEUED);
		this.producer.signal(id, "payment", "paid");
		JobResult result = this.producer.await(id, LONG_POLL.dividedBy(4));
		assertThat(result.status()).isEqualTo(JobStatus.SUCCEEDED);
		assertThat(result.result(String.class)).isEqualTo("paid");
	}

	@Test
	void jobFinishedOnOneInstanceCompletesItsWaiterOnAnotherAtOnce() throws Exception {
		await().pollDelay(Duration.ofMillis(300)).until(() -> true);
		List<Long> ids = this.producer.enqueueAll(List.of(Job.of("work", 1), Job.of("work", 2)));
		List<JobResult> results = new ArrayList<>();
		for (long id : ids) {
			results.add(this.producer.await(id, LONG_POLL.dividedBy(4)));
		}
		assertThat(results).extracting((result) -> result.result(String.class)).containsExactly("done", "done");
	}

	@Test
	void cancelAskedOnOneInstanceStopsTheJobOnAnotherAtOnce() throws Exception {
		await().pollDelay(Duration.ofMillis(300)).until(() -> true);
		long id = this.producer.enqueue("block", null);
		await().atMost(LONG_POLL.dividedBy(4)).until(() -> this.fixture.status(id) == JobStatus.RUNNING);
		assertThat(this.producer.cancel(id)).isTrue();
		JobResult result = this.producer.await(id, LONG_POLL.dividedBy(4));
		assertThat(result.status()).isEqualTo(JobStatus.CANCELLED);
		assertThat(result.error()).isEqualTo(EndReasons.CANCELLED_WHILE_RUNNING);
	}

	@Test
	void finishedJobsAreAnnouncedInPayloadsPostgresAccepts() {
		List<Long> ids = new ArrayList<>();
		for (long id = Long.MAX_VALUE - 2000; id < Long.MAX_VALUE; id++) {
			ids.add(id);
		}
		List<String> payloads = NotifyPayloads.finished(ids);
		assertThat(payloads).hasSizeGreaterThan(1)
			.allSatisfy((payload) -> assertThat(payload.length()).isLessThanOrEqualTo(NotifyPayloads.MAX_PAYLOAD));
		Set<Long> heard = new java.util.concurrent.CopyOnWriteArraySet<>();
		PostgresNotifications listening = new PostgresNotifications(this.database.dataSource(),
				"sqlqueue_payload_test", new QueueEvents() {
					@Override
					public void finished(Set<Long> jobIds) {
						heard.addAll(jobIds);
					}
				}, new SimpleAsyncTaskExecutor("test-listen-payloads-"));
		listening.start();
		try {
			await().atMost(Duration.ofSeconds(30)).until(listening::isListening);
			for (String payload : payloads) {
				this.fixture.jdbc().query("SELECT pg_notify(?, ?)", (rs) -> {
				}, "sqlqueue_payload_test", payload);
			}
			await().atMost(Duration.ofSeconds(30)).until(() -> heard.size() == ids.size());
			assertThat(heard).containsExactlyInAnyOrderElementsOf(ids);
		}
		finally {
			listening.stop();
		}
	}

	/**
	 * Only the end of a job someone awaits is announced, whatever wrote it: a completion that
	 * settles a dependent, a failure, a cancel (a {@code NOTIFY} serializes the commits of
	 * every announcing transaction). Everything committed before the marker arrives before it.
	 */
	@Test
	void onlyTheEndsOfAwaitedJobsAreAnnounced() throws Exception {
		String channel = PostgresNotifications.channel(this.database.schema());
		JobStore store = notifyingStore(channel);
		long settling = this.producer.enqueue("step", 1);
		long awaitedSettling = this.producer.enqueue("step", 2);
		long failing = this.producer.enqueue("step", 3);
		long cancelled = this.producer.enqueue(Job.of("step", 4).delay(Duration.ofHours(1)));
		this.producer.enqueue(Job.of("later", null).after(settling));
		this.producer.enqueue(Job.of("later", null).after(awaitedSettling));
		store.markAwaited(awaitedSettling);
		try (java.sql.Connection listening = this.database.dataSource().getConnection();
				java.sql.Statement statement = listening.createStatement()) {
			statement.execute("LISTEN \"" + channel + "\"");
			List<io.sqlqueue.JobRecord> claimed = store.claim(new ClaimRequest("w", "default", List.of("step"), 10, 30_000));
			assertThat(claimed).extracting(io.sqlqueue.JobRecord::id).containsExactly(settling, awaitedSettling, failing);
			assertThat(store.complete(claimed.subList(0, 2).stream()
				.map((job) -> new Completion(new Lease(job.id(), job.leaseToken()), null))
				.toList())).containsExactly(true, true);
			assertThat(store.fail(new Lease(failing, claimed.get(2).leaseToken()), "broken")).isTrue();
			assertThat(store.cancel(cancelled)).isTrue();
			this.fixture.jdbc().query("SELECT pg_notify(?, 'marker')", (rs) -> {
			}, channel);
			List<String> heard = new ArrayList<>();
			long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
			while (!heard.contains("marker") && System.nanoTime() < deadline) {
				org.postgresql.PGNotification[] received = listening.unwrap(org.postgresql.PGConnection.class)
					.getNotifications(1000);
				for (org.postgresql.PGNotification notification : (received != null) ? received
						: new org.postgresql.PGNotification[0]) {
					heard.add(notification.getParameter());
				}
			}
			assertThat(heard).contains("marker");
			assertThat(heard.stream().filter((payload) -> payload.startsWith("done:")))
				.containsExactly("done:" + awaitedSettling);
		}
	}

	@Test
	void enqueueElsewhereWakesTheIdleManager() {
		// Let the Manager's first poll pass, so that only a wake-up can claim the job in time.
		await().pollDelay(Duration.ofMillis(300)).until(() -> true);
		long id = this.producer.enqueue("work", null);
		await().atMost(LONG_POLL.dividedBy(4)).until(() -> this.fixture.status(id) == JobStatus.SUCCEEDED);
		this.notifications.stop();
		assertThat(this.notifications.isListening()).isFalse();
	}

	/**
	 * An enqueue committed in the caller's transaction, and one outside any, wake the idle
	 * Manager of another instance within seconds of committing, its poll being minutes away.
	 */
	@Test
	void enqueueElsewhereWakesTheIdleManagerWithinSecondsOfItsCommit() {
		await().pollDelay(Duration.ofMillis(300)).until(() -> true);
		TransactionTemplate transaction = new TransactionTemplate(
				new DataSourceTransactionManager(this.database.dataSource()));
		long inTransaction = transaction.execute((status) -> this.producer.enqueue("work", 1));
		await().atMost(Duration.ofSeconds(5)).until(() -> this.fixture.status(inTransaction) == JobStatus.SUCCEEDED);
		long alone = this.producer.enqueue("work", 2);
		await().atMost(Duration.ofSeconds(5)).until(() -> this.fixture.status(alone) == JobStatus.SUCCEEDED);
	}

	/**
	 * Many enqueuing transactions committing at once cost a few {@code NOTIFY}s, not one each:
	 * they are sent after commit, coalesced ({@link WorkAnnouncer}), so that the commits do not
	 * queue on the lock a {@code NOTIFY} takes at commit.
	 */
	@Test
	void concurrentEnqueuesAreAnnouncedInFarFewerNotificationsThanTransactions() throws Exception {
		int threads = 16;
		int rounds = 10;
		TransactionTemplate transaction = new TransactionTemplate(
				new DataSourceTransactionManager(this.database.dataSource()));
		try (Listening listening = new Listening(PostgresNotifications.channel(this.database.schema()))) {
			CyclicBarrier commit = new CyclicBarrier(threads);
			ExecutorService executor = Executors.newFixedThreadPool(threads);
			try {
				List<Future<?>> enqueuers = new ArrayList<>();
				for (int t = 0; t < threads; t++) {
					enqueuers.add(executor.submit(() -> {
						for (int round = 0; round < rounds; round++) {
							transaction.executeWithoutResult((status) -> {
								this.producer.enqueue(Job.of("work", null).queue("crowd"));
								arriveAt(commit);
							});
						}
						return null;
					}));
				}
				for (Future<?> enqueuer : enqueuers) {
					enqueuer.get(2, TimeUnit.MINUTES);
				}
			}
			finally {
				executor.shutdownNow();
			}
			List<String> heard = listening.untilQuietFor(Duration.ofSeconds(2));
			assertThat(heard).containsOnly("crowd")
				.hasSizeGreaterThanOrEqualTo(1)
				// One each before; about one a round here (45 of 160 on a machine loaded 20 times over).
				.hasSizeLessThanOrEqualTo(threads * rounds / 2);
		}
		assertThat(this.fixture.count("queue = 'crowd'")).isEqualTo(threads * rounds);
	}

	/** A rolled-back enqueue announces nothing; one committed after it is announced. */
	@Test
	void aRolledBackEnqueueIsNotAnnounced() throws Exception {
		TransactionTemplate transaction = new TransactionTemplate(
				new DataSourceTransactionManager(this.database.dataSource()));
		try (Listening listening = new Listening(PostgresNotifications.channel(this.database.schema()))) {
			transaction.executeWithoutResult((status) -> {
				this.producer.enqueue(Job.of("work", null).queue("undone"));
				status.setRollbackOnly();
			});
			this.producer.enqueue(Job.of("work", null).queue("done"));
			List<String> heard = listening.until("done", Duration.ofSeconds(30));
			assertThat(heard).contains("done").doesNotContain("undone");
		}
		assertThat(this.fixture.count("queue = 'undone'")).isZero();
	}

	private static void arriveAt(CyclicBarrier barrier) {
		try {
			barrier.await(1, TimeUnit.MINUTES);
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

	/** A connection of the test's own that listens on a channel and collects the payloads it hears. */
	private final class Listening implements AutoCloseable {

		private final Connection connection;

		private final List<String> heard = new ArrayList<>();

		Listening(String channel) throws SQLException {
			this.connection = PostgresNotificationsIT.this.database.dataSource().getConnection();
			try (Statement statement = this.connection.createStatement()) {
				statement.execute("LISTEN \"" + channel + "\"");
			}
		}

		/** What it heard until {@code payload} arrived (or {@code timeout} passed). */
		List<String> until(String payload, Duration timeout) throws SQLException {
			long deadline = System.nanoTime() + timeout.toNanos();
			while (!this.heard.contains(payload) && System.nanoTime() < deadline) {
				receive(200);
			}
			return this.heard;
		}

		/** What it heard until nothing arrived for {@code quiet}. */
		List<String> untilQuietFor(Duration quiet) throws SQLException {
			while (receive((int) quiet.toMillis()) > 0) {
				// Heard something: listen on.
			}
			return this.heard;
		}

		private int receive(int millis) throws SQLException {
			PGNotification[] received = this.connection.unwrap(PGConnection.class).getNotifications(millis);
			int count = (received != null) ? received.length : 0;
			for (int i = 0; i < count; i++) {
				this.heard.add(received[i].getParameter());
			}
			return count;
		}

		@Override
		public void close() throws SQLException {
			try (Statement statement = this.connection.createStatement()) {
				statement.execute("UNLISTEN *");
			}
			this.connection.close();
		}

	}

	@Test
	void listenerReconnectsAfterLosingItsConnection() {
		await().pollDelay(Duration.ofMillis(300)).until(() -> true);
		int terminated = this.fixture.jdbc()
			.queryForObject("SELECT COUNT(pg_terminate_backend(pid)) FROM pg_stat_activity "
					+ "WHERE datname = current_database() AND query LIKE 'LISTEN%' AND pid <> pg_backend_pid()",
					Integer.class);
		assertThat(terminated).isPositive();
		await().atMost(Duration.ofSeconds(30)).until(() -> !this.notifications.isListening());
		await().atMost(Duration.ofSeconds(30)).until(this.notifications::isListening);
		long id = this.producer.enqueue("work", null);
		await().atMost(LONG_POLL.dividedBy(4)).until(() -> this.fixture.status(id) == JobStatus.SUCCEEDED);
	}

}
