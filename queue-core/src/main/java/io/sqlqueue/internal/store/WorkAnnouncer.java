package io.sqlqueue.internal.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Announces new work of queues on the notification channel ({@link Dialect#notifyStatement()},
 * PostgreSQL's {@code NOTIFY}, heard by {@code store.postgresql.PostgresNotifications}) once the
 * transaction that made it commits, from its own connection, coalesced: one announcement at
 * a time per store, at most one per {@link #SPACING}, each naming every queue that got work
 * since the last. The first after a quiet spell goes at once.
 * <p>
 * Not in the enqueuing transaction, because there a {@code NOTIFY} takes a database-wide lock
 * at commit that serialises the commits of every announcing transaction: with many concurrent
 * single-job enqueues, their commits queued on it. Here N concurrent commits cost about one
 * announcement. The price: an instance that stops between the commit and the announcement
 * (a crash, a lost connection) announces nothing, and other instances find the job at their
 * next poll ({@code sqlqueue.manager.poll-interval}) instead. The enqueuing instance's own
 * Manager is woken at commit without it. A rolled-back transaction announces nothing.
 */
public final class WorkAnnouncer {

	private static final Logger logger = LoggerFactory.getLogger(WorkAnnouncer.class);

	/** The least time between the starts of two announcements: what arrives meanwhile waits for the next. */
	public static final Duration SPACING = Duration.ofMillis(5);

	/** How long the sending thread waits for more work to announce before it ends. */
	static final Duration LINGER = Duration.ofSeconds(1);

	private final DataSource dataSource;

	private final String statement;

	private final String channel;

	private final Object lock = new Object();

	/** The queues to announce next; guarded by {@link #lock}. */
	private Set<String> pending = new LinkedHashSet<>();

	/** Whether a thread is sending (or waiting to); guarded by {@link #lock}. */
	private boolean sending;

	/**
	 * @param statement the dialect's {@link Dialect#notifyStatement()}: the channel, then the payload
	 * @param channel where to announce
	 */
	public WorkAnnouncer(DataSource dataSource, String statement, String channel) {
		this.dataSource = dataSource;
		this.statement = statement;
		this.channel = channel;
	}

	/** Announces that these queues got work once the current transaction commits (never if it rolls back), or now without one. */
	public void afterCommit(Collection<String> queues) {
		if (queues.isEmpty()) {
			return;
		}
		Set<String> announced = new LinkedHashSet<>(queues);
		AfterCommit.run(() -> announce(announced));
	}

	/** Announces that these queues got work, soon, with whatever else arrives meanwhile. */
	void announce(Collection<String> queues) {
		synchronized (this.lock) {
			this.pending.addAll(queues);
			if (this.sending) {
				this.lock.notifyAll();
				return;
			}
			this.sending = true;
		}
		Thread sender = new Thread(this::send, "sqlqueue-announce-" + this.channel);
		sender.setDaemon(true);
		sender.start();
	}

	/** Sends what is pending, one announcement per {@link #SPACING} at most, until none arrives for {@link #LINGER}. */
	private void send() {
		long lastStart = System.nanoTime() - SPACING.toNanos();
		boolean ended = false;
		try {
			while (true) {
				Set<String> queues = next(lastStart);
				if (queues == null) {
					ended = true;
					return;
				}
				lastStart = System.nanoTime();
				notify(queues);
			}
		}
		catch (SQLException | RuntimeException ex) {
			logger.warn("sqlqueue could not announce new work of queues; other instances find it at their next poll",
					ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		finally {
			if (!ended) {
				synchronized (this.lock) {
					this.pending.clear();
					this.sending = false;
				}
			}
		}
	}

	/**
	 * The queues to announce next, once {@link #SPACING} has passed since {@code lastStart};
	 * {@code null}, and no longer sending, when none arrived for {@link #LINGER}.
	 */
	private Set<String> next(long lastStart) throws InterruptedException {
		synchronized (this.lock) {
			long lingerEnd = System.nanoTime() + LINGER.toNanos();
			while (this.pending.isEmpty()) {
				long left = lingerEnd - System.nanoTime();
				if (left <= 0) {
					this.sending = false;
					return null;
				}
				TimeUnit.NANOSECONDS.timedWait(this.lock, left);
			}
			long due = lastStart + SPACING.toNanos();
			for (long left = due - System.nanoTime(); left > 0; left = due - System.nanoTime()) {
				TimeUnit.NANOSECONDS.timedWait(this.lock, left);
			}
			Set<String> queues = this.pending;
			this.pending = new LinkedHashSet<>();
			return queues;
		}
	}

	/** One {@code NOTIFY} per queue, in one transaction of a connection of its own. */
	private void notify(Set<String> queues) throws SQLException {
		try (Connection connection = this.dataSource.getConnection()) {
			boolean autoCommit = connection.getAutoCommit();
			if (autoCommit && queues.size() > 1) {
				connection.setAutoCommit(false);
			}
			try (PreparedStatement notify = connection.prepareStatement(this.statement)) {
				for (String queue : queues) {
					notify.setString(1, this.channel);
					notify.setString(2, queue);
					try (ResultSet ignored = notify.executeQuery()) {
						// pg_notify returns void: one row, nothing in it.
					}
				}
			}
			if (!connection.getAutoCommit()) {
				connection.commit();
				connection.setAutoCommit(autoCommit);
			}
		}
	}

}
