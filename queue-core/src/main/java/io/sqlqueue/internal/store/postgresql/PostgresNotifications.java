package io.sqlqueue.internal.store.postgresql;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.SmartLifecycle;

import io.sqlqueue.internal.store.DemotedServers;
import io.sqlqueue.internal.store.NotifyPayloads;
import io.sqlqueue.internal.store.QueueEvents;

/**
 * Receives PostgreSQL's {@code NOTIFY} of new work, so that idle workers of every instance
 * pick up a job within milliseconds of its enqueue committing instead of at their next
 * poll; and of jobs that finished (for those who await them) and of cancels asked for
 * running jobs (for the instance that holds them). One channel carries all three: a payload
 * is a queue name, {@code done:} and job ids, or {@code cancel:} and a job id (queue names
 * have no colon). Listens on one dedicated connection, taken from the data source and held while
 * running; when it breaks (restart, failover), it reconnects with backoff, and polling
 * covers the gap. The enqueue side is {@link io.sqlqueue.internal.store.WorkAnnouncer}: a {@code pg_notify} per
 * queue once the enqueuing transaction commits, from a connection of its own, coalesced
 * across concurrent enqueues.
 */
public class PostgresNotifications implements SmartLifecycle {

	private static final Logger logger = LoggerFactory.getLogger(PostgresNotifications.class);

	/** The longest wait before reconnecting: LISTEN follows a new primary within it (as the claim loop does). */
	private static final Duration MAX_BACKOFF = Duration.ofSeconds(5);

	/** How often the listening connection checks that its server is still the primary. */
	private static final Duration ROLE_CHECK_EVERY = Duration.ofSeconds(5);

	private final DataSource dataSource;

	private final String channel;

	private static final String FINISHED = NotifyPayloads.FINISHED;

	private static final String CANCEL = NotifyPayloads.CANCEL;

	private final QueueEvents events;

	private final Executor executor;

	private volatile boolean running;

	private volatile boolean listening;

	private volatile CountDownLatch ended = new CountDownLatch(0);

	public PostgresNotifications(DataSource dataSource, String channel, Consumer<Set<String>> wakeUp,
			Executor executor) {
		this(dataSource, channel, new QueueEvents() {
			@Override
			public void newWork(Set<String> queues) {
				wakeUp.accept(queues);
			}
		}, executor);
	}

	public PostgresNotifications(DataSource dataSource, String channel, QueueEvents events, Executor executor) {
		this.dataSource = dataSource;
		this.channel = channel;
		this.events = events;
		this.executor = executor;
	}

	@Override
	public synchronized void start() {
		if (!this.running) {
			this.running = true;
			CountDownLatch ended = new CountDownLatch(1);
			this.ended = ended;
			this.executor.execute(() -> {
				try {
					listen();
				}
				finally {
					ended.countDown();
				}
			});
		}
	}

	/**
	 * Stops listening, and waits (a second at most) for the connection to go back to the
	 * pool, which happens when its current wait for notifications ends.
	 */
	@Override
	public synchronized void stop() {
		this.running = false;
		try {
			this.ended.await(1, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	/**
	 * Throws when the listening connection's server is no primary now: a primary demoted to a
	 * standby, or made read-only, may keep its sessions, and nothing is notified there any more.
	 */
	private static void requirePrimary(Connection connection) throws SQLException {
		try (Statement statement = connection.createStatement();
				java.sql.ResultSet row = statement
					.executeQuery("SELECT pg_is_in_recovery() OR current_setting('transaction_read_only') = 'on'")) {
			if (row.next() && row.getBoolean(1)) {
				throw new SQLException("The LISTEN connection's server is not a primary now", "25006");
			}
		}
	}

	/** Whether a connection is listening now. */
	public boolean isListening() {
		return this.listening;
	}

	private void listen() {
		int failures = 0;
		while (this.running) {
			try (Connection connection = this.dataSource.getConnection()) {
				connection.setAutoCommit(true);
				try (Statement statement = connection.createStatement()) {
					statement.execute("LISTEN \"" + this.channel + "\"");
				}
				this.listening = true;
				failures = 0;
				PGConnection notifications = connection.unwrap(PGConnection.class);
				long roleCheckedAt = System.nanoTime();
				while (this.running) {
					PGNotification[] received = notifications.getNotifications(500);
					if (received != null && received.length > 0) {
						dispatch(received);
					}
					if (System.nanoTime() - roleCheckedAt > ROLE_CHECK_EVERY.toNanos()) {
						requirePrimary(connection);
						roleCheckedAt = System.nanoTime();
					}
				}
				// A pooled connection must not go on collecting notifications for its next user.
				try (Statement statement = connection.createStatement()) {
					statement.execute("UNLISTEN *");
				}
			}
			catch (SQLException | RuntimeException ex) {
				this.listening = false;
				if (!this.running) {
					break;
				}
				failures++;
				// LISTEN on a standby, or on a demoted primary's pooled connection: drop those connections,
				// so that the next one (targetServerType=primary) is the new primary's.
				DemotedServers.evictIfNotAPrimary(this.dataSource, ex);
				long backoff = Math.min(MAX_BACKOFF.toMillis(), 100L << Math.min(failures, 8));
				if (failures == 1) {
					logger.warn("sqlqueue lost its LISTEN connection; reconnecting in {} ms; polling covers the gap",
							backoff, ex);
				}
				else {
					logger.debug("sqlqueue could not LISTEN (failure {} in a row); reconnecting in {} ms", failures,
							backoff, ex);
				}
				sleep(backoff);
			}
			finally {
				this.listening = false;
			}
		}
	}

	private void dispatch(PGNotification[] received) {
		Set<String> queues = new LinkedHashSet<>();
		Set<Long> finished = new LinkedHashSet<>();
		Set<Long> cancels = new LinkedHashSet<>();
		for (PGNotification notification : received) {
			String payload = notification.getParameter();
			if (payload.startsWith(FINISHED)) {
				ids(payload.substring(FINISHED.length()), finished);
			}
			else if (payload.startsWith(CANCEL)) {
				ids(payload.substring(CANCEL.length()), cancels);
			}
			else {
				queues.add(payload);
			}
		}
		if (!queues.isEmpty()) {
			this.events.newWork(queues);
		}
		if (!finished.isEmpty()) {
			this.events.finished(finished);
		}
		if (!cancels.isEmpty()) {
			this.events.cancelRequested(cancels);
		}
	}

	private static void ids(String list, Set<Long> into) {
		for (String id : list.split(",")) {
			try {
				into.add(Long.parseLong(id));
			}
			catch (NumberFormatException ex) {
				logger.debug("Ignoring a notification with a malformed job id: {}", id);
			}
		}
	}

	private static void sleep(long millis) {
		try {
			TimeUnit.MILLISECONDS.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/** The channel of the queue table in this schema ({@link NotifyPayloads#channel}). */
	public static String channel(@Nullable String schema) {
		return NotifyPayloads.channel(schema);
	}

}
