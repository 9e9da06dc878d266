package io.sqlqueue.flow;

import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sqlqueue.Names;
import io.sqlqueue.store.FlowStore;
import io.sqlqueue.store.LimitRow;

/**
 * Limits on how many jobs run at once and start per period, across every instance
 * (README "Flow control"): of a queue as a whole, and of each concurrency key of a queue
 * ({@link io.sqlqueue.Job#concurrencyKey}) that a pattern matches. The claim enforces them, so
 * jobs over a limit stay {@code QUEUED} until there is room.
 * <p>
 * Limits live in the database: a change here holds for every instance from its next claim,
 * commits at once (apart from any transaction of the caller), and wakes the Managers (this
 * instance's through the {@link #addChangeListener listeners}, others' through PostgreSQL's
 * notifications or at their next poll), so that a raised or removed limit lets waiting jobs
 * start at once.
 */
public class FlowControl {

	private static final Logger logger = LoggerFactory.getLogger(FlowControl.class);

	private final FlowStore store;

	private final List<Consumer<Set<String>>> changeListeners = new CopyOnWriteArrayList<>();

	public FlowControl(FlowStore store) {
		this.store = store;
	}

	/** The limits of every queue that has any. */
	public List<QueueLimits> all() {
		return this.store.allLimits();
	}

	/** The limits of a queue (none when it has none). */
	public QueueLimits limits(String queue) {
		return this.store.limits(Names.requireQueue(queue));
	}

	/** Limits the queue as a whole: its jobs running at once and starting per period, across every instance. */
	public void setLimit(String queue, Limit limit) {
		put(LimitDefinition.ofQueue(queue, limit), LimitSource.API);
	}

	/** Limits each concurrency key of the queue that {@code keys} matches (see {@link KeyLimit}). */
	public void setKeyLimit(String queue, String keys, Limit limit) {
		put(LimitDefinition.ofKeys(queue, keys, limit), LimitSource.API);
	}

	/** Removes the queue's own limit; false when it had none. Its key limits stay. */
	public boolean removeLimit(String queue) {
		return remove(Names.requireQueue(queue), LimitRow.QUEUE);
	}

	/** Removes the limit of the keys of the queue that {@code keys} matches; false when there was none. */
	public boolean removeKeyLimit(String queue, String keys) {
		return remove(Names.requireQueue(queue), KeyLimit.requirePattern(keys));
	}

	/**
	 * Stores the limits the application declares from one source (at start-up): new and
	 * changed ones are set (replacing one of the same queue and keys set otherwise), and those
	 * stored from this source that it no longer declares are removed, of the queues it serves
	 * only: an instance of another application, or of another version with other handlers,
	 * may declare limits of queues this one knows nothing of, and they stay.
	 * @param served the queues this instance serves (runs handlers of)
	 * @throws IllegalStateException when one queue and pattern are declared twice
	 */
	public void declare(LimitSource source, List<LimitDefinition> limits, Set<String> served) {
		Set<List<String>> declared = new HashSet<>();
		for (LimitDefinition limit : limits) {
			if (!declared.add(List.of(limit.queue(), limit.keys()))) {
				throw new IllegalStateException("Two limits are declared for " + where(limit.queue(), limit.keys())
						+ " (" + source + ")");
			}
		}
		List<LimitRow> stored = this.store.all();
		for (LimitDefinition limit : limits) {
			boolean same = stored.stream()
				.anyMatch((row) -> row.queue().equals(limit.queue()) && row.keyPattern().equals(limit.keys())
						&& row.limit().equals(limit.limit()) && row.source().equals(source.name()));
			if (!same) {
				put(limit, source);
			}
		}
		stored.stream()
			.filter((row) -> row.source().equals(source.name()) && served.contains(row.queue())
					&& !declared.contains(List.of(row.queue(), row.keyPattern())))
			.forEach((row) -> {
				logger.info("Limit of {} ({}) is no longer declared; removing it", where(row.queue(), row.keyPattern()),
						source);
				remove(row.queue(), row.keyPattern());
			});
	}

	/**
	 * How many due jobs the limits hold back now, per limited queue and by the limit that
	 * does ({@code queue-concurrency}, {@code queue-rate}, {@code key-concurrency},
	 * {@code key-rate}; see {@link Admission#heldBack}).
	 */
	public Map<String, Map<String, Long>> throttled() {
		// Read without taking the queues' locks: a moment's view.
		Map<String, Map<String, Long>> held = new LinkedHashMap<>();
		long now = this.store.now().toEpochMilli();
		for (QueueLimits limits : this.store.allLimits()) {
			String queue = limits.queue();
			FlowStore.Running running = this.store.running(queue);
			Admission admission = new Admission(limits, now, running.total(), running.byKey(),
					this.store.queueWindow(queue));
			admission.windowsRead(this.store.keyWindows(queue));
			FlowStore.DueJobs due = this.store.due(queue);
			held.put(queue, admission.heldBack(due.byKey(), due.withoutKey()));
		}
		return held;
	}

	/**
	 * Deletes the key windows that count for nothing any more; returns how many. Claims of a
	 * queue with key rate limits do so themselves, once a minute per instance.
	 */
	public int pruneWindows() {
		return this.store.pruneWindows();
	}

	/** Tells {@code listener} which queue's limits changed, once the change has committed. */
	public void addChangeListener(Consumer<Set<String>> listener) {
		this.changeListeners.add(listener);
	}

	private void put(LimitDefinition limit, LimitSource source) {
		this.store.put(limit.queue(), limit.keys(), limit.limit(), source.name());
		changed(limit.queue());
	}

	private boolean remove(String queue, String keys) {
		boolean removed = this.store.remove(queue, keys);
		changed(queue);
		return removed;
	}

	private void changed(String queue) {
		this.changeListeners.forEach((listener) -> listener.accept(Set.of(queue)));
	}

	private static String where(String queue, String keys) {
		return "queue '" + queue + "'" + (keys.isEmpty() ? "" : " keys '" + keys + "'");
	}

}
