package io.sqlqueue.store;

import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.core.task.SimpleAsyncTaskExecutor;

import io.sqlqueue.JobQueue;
import io.sqlqueue.JobStatus;
import io.sqlqueue.handler.HandlerDefinition;
import io.sqlqueue.handler.HandlerRegistry;
import io.sqlqueue.handler.PayloadCodec;
import io.sqlqueue.manager.Manager;
import io.sqlqueue.test.QueueFixture;
import io.sqlqueue.test.TestDatabase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An enqueue on one instance wakes the idle Manager of another through LISTEN/NOTIFY, long
 * before its next poll, and the listener survives losing its connection.
 */
class PostgresNotificationsIT {

	private static final Duration LONG_POLL = Duration.ofMinutes(2);

	private TestDatabase.Isolated database;

	private QueueFixture fixture;

	private PostgresNotifications notifications;

	private JobQueue producer;

	@BeforeEach
	void setUp() {
		this.database = TestDatabase.POSTGRESQL.isolated();
		this.fixture = new QueueFixture(this.database, ClaimMethod.UPDATE_RETURNING, new PayloadCodec());
		String channel = PostgresNotifications.channel(this.database.schema());
		JobStore notifying = new JobStore(this.database.dataSource(), this.database.dialect(),
				this.database.schema(), ClaimMethod.UPDATE_RETURNING, channel);
		this.producer = new JobQueue(notifying, new PayloadCodec(), new HandlerRegistry(),
				QueueFixture.FAST_RETRIES);
		this.fixture.register(HandlerDefinition.of("work", "default", (payload, context) -> null));
		Manager idle = this.fixture.startManager((settings) -> settings.pollInterval(LONG_POLL));
		this.notifications = new PostgresNotifications(this.database.dataSource(), channel, idle::wakeUp,
				new SimpleAsyncTaskExecutor("test-listen-"));
		this.notifications.start();
		await().atMost(Duration.ofSeconds(30)).until(this.notifications::isListening);
	}

	@AfterEach
	void tearDown() throws Exception {
		this.notifications.stop();
		this.fixture.close();
		this.database.close();
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
