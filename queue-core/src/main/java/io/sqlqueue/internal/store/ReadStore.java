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

	private final JobBrowser browser;

	private final Supplier<List<QueueCount>> countsByQueue;

	private final @Nullable ReplicaLagReader lag;

	private ReadStore(JobBrowser browser, Supplier<List<QueueCount>> countsByQueue, @Nullable ReplicaLagReader lag) {
		this.browser = browser;
		this.countsByQueue = countsByQueue;
		this.lag = lag;
	}

	/** The reads on the queue's own store: nothing behind. */
	public static ReadStore of(QueueStore store) {
		return new ReadStore(store.browser(), store::countsByQueue, null);
	}

	/**
	 * The reads on a read-only replica of the queue's database: the same dialect and schema.
	 * Opens no connection until the first read, so a replica that is down delays nothing.
	 */
	public static ReadStore replica(DataSource replica, Dialect dialect, @Nullable String schema) {
		StoreContext context = StoreContext.on(replica, dialect);
		JobReads reads = new JobReads(context, new JobReadSql(dialect, schema),
				new JobLabels(context.jdbc(), dialect, schema), new JobSql(dialect, schema).tableName);
		return new ReadStore(new JobBrowser(context, schema),
				reads::countsByQueue, dialect.replicaLagReader(context.jdbc()));
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
		return read("search jobs", () -> this.browser.olderThan(filter, before, limit));
	}

	/** As {@link JobBrowser#newerThan}. */
	public JobPage newerThan(JobFilter filter, long after, int limit) {
		return read("search jobs", () -> this.browser.newerThan(filter, after, limit));
	}

	/** As {@link JobBrowser#count}. */
	public long count(JobFilter filter) {
		return read("count jobs", () -> this.browser.count(filter));
	}

	/** As {@link QueueStore#countsByQueue}. */
	public List<QueueCount> countsByQueue() {
		return read("count jobs per queue", this.countsByQueue::get);
	}

	/** As {@link JobBrowser#queuedByQueue}. */
	public List<QueuedCount> queuedByQueue() {
		return read("count queued jobs", () -> this.browser.queuedByQueue());
	}

	/** As {@link JobBrowser#finishedPerMinute}. */
	public List<FinishedCount> finishedPerMinute(int minutes) {
		return read("count finished jobs", () -> this.browser.finishedPerMinute(minutes));
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
