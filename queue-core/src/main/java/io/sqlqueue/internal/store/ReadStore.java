package io.sqlqueue.internal.store;

import java.time.Instant;
import java.util.List;
import java.util.function.Supplier;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.transaction.TransactionException;

import io.sqlqueue.admin.JobFilter;
import io.sqlqueue.admin.JobPage;
import io.sqlqueue.admin.ReplicaReadException;
import io.sqlqueue.admin.Staleness;

/**
 * The reads that tolerate staleness, for people looking at the queue: pages and counts of a
 * filter, jobs per queue and state, the queued jobs by why they wait, and jobs finished per
 * minute; and how stale they may be ({@link #staleness()}). On the queue's own store
 * ({@link #of}), or on a read-only replica ({@link #replica}), where the same statements run
 * through a store of its own that is never handed out, so nothing that writes or decides can
 * reach the replica. A replica's failure is a {@link ReplicaReadException}; these reads never
 * fall back to the queue's own database.
 */
public final class ReadStore {

	private final JobStore store;

	private final @Nullable ReplicaLagReader lag;

	private ReadStore(JobStore store, @Nullable ReplicaLagReader lag) {
		this.store = store;
		this.lag = lag;
	}

	/** The reads on the queue's own store: nothing behind. */
	public static ReadStore of(JobStore store) {
		return new ReadStore(store, null);
	}

	/**
	 * The reads on a read-only replica of the queue's database: the same dialect and schema.
	 * Opens no connection until the first read, so a replica that is down delays nothing.
	 */
	public static ReadStore replica(DataSource replica, Dialect dialect, @Nullable String schema) {
		JobStore store = new JobStore(replica, dialect, schema);
		return new ReadStore(store, dialect.replicaLagReader(JobStore.jdbcTemplate(replica, dialect)));
	}

	/** Whether these reads go to a replica. */
	public boolean isReplica() {
		return this.lag != null;
	}

	/** How far behind the queue's own database these reads may be, now; never throws. */
	public Staleness staleness() {
		if (this.lag == null) {
			return Staleness.primary(Instant.now());
		}
		try {
			return this.lag.read();
		}
		catch (RuntimeException ex) {
			return Staleness.unreachable(Instant.now(), String.valueOf(ex.getMessage()));
		}
	}

	/** As {@link JobBrowser#olderThan}. */
	public JobPage olderThan(JobFilter filter, @Nullable Long before, int limit) {
		return read("search jobs", () -> this.store.browser().olderThan(filter, before, limit));
	}

	/** As {@link JobBrowser#newerThan}. */
	public JobPage newerThan(JobFilter filter, long after, int limit) {
		return read("search jobs", () -> this.store.browser().newerThan(filter, after, limit));
	}

	/** As {@link JobBrowser#count}. */
	public long count(JobFilter filter) {
		return read("count jobs", () -> this.store.browser().count(filter));
	}

	/** As {@link JobStore#countsByQueue}. */
	public List<QueueCount> countsByQueue() {
		return read("count jobs per queue", this.store::countsByQueue);
	}

	/** As {@link JobBrowser#queuedByQueue}. */
	public List<QueuedCount> queuedByQueue() {
		return read("count queued jobs", () -> this.store.browser().queuedByQueue());
	}

	/** As {@link JobBrowser#finishedPerMinute}. */
	public List<FinishedCount> finishedPerMinute(int minutes) {
		return read("count finished jobs", () -> this.store.browser().finishedPerMinute(minutes));
	}

	private <T> T read(String what, Supplier<T> read) {
		if (this.lag == null) {
			return read.get();
		}
		try {
			return read.get();
		}
		catch (DataAccessException | TransactionException ex) {
			throw new ReplicaReadException(what, ex);
		}
	}

}
