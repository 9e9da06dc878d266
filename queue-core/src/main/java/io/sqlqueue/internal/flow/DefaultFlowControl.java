package io.sqlqueue.internal.flow;

import java.util.Comparator;
import java.util.HashMap;
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
import io.sqlqueue.flow.FairKeyShare;
import io.sqlqueue.flow.Fairness;
import io.sqlqueue.flow.FlowControl;
import io.sqlqueue.flow.KeyLimit;
import io.sqlqueue.flow.Limit;
import io.sqlqueue.flow.LimitDefinition;
import io.sqlqueue.flow.LimitSource;
import io.sqlqueue.flow.QueueLimits;
import io.sqlqueue.internal.store.FlowStore;
import io.sqlqueue.internal.store.LimitRow;

/**
 * The {@link FlowControl} the starter builds.
 */
public class DefaultFlowControl implements FlowControl {

	private static final Logger logger = LoggerFactory.getLogger(DefaultFlowControl.class);

	private final FlowStore store;

	private final List<Consumer<Set<String>>> changeListeners = new CopyOnWriteArrayList<>();

	public DefaultFlowControl(FlowStore store) {
		this.store = store;
	}

	@Override
	public List<QueueLimits> all() {
		return this.store.allLimits();
	}

	@Override
	public QueueLimits limits(String queue) {
		return this.store.limits(Names.requireQueue(queue));
	}

	@Override
	public void setLimit(String queue, Limit limit) {
		put(LimitDefinition.ofQueue(queue, limit), LimitSource.API);
	}

	@Override
	public void setKeyLimit(String queue, String keys, Limit limit) {
		put(LimitDefinition.ofKeys(queue, keys, limit), LimitSource.API);
	}

	@Override
	public boolean removeLimit(String queue) {
		return remove(Names.requireQueue(queue), LimitRow.QUEUE);
	}

	@Override
	public boolean removeKeyLimit(String queue, String keys) {
		return remove(Names.requireQueue(queue), KeyLimit.requirePattern(keys));
	}

	@Override
	public void setFairness(String queue, Fairness fairness) {
		putFairness(Names.requireQueue(queue), fairness, LimitSource.API);
	}

	@Override
	public boolean removeFairness(String queue) {
		boolean removed = this.store.removeFairness(Names.requireQueue(queue));
		changed(queue);
		return removed;
	}

	@Override
	public List<FairKeyShare> fairShares(String queue) {
		if (!this.store.limits(Names.requireQueue(queue)).isFair()) {
			return List.of();
		}
		long now = this.store.now().toEpochMilli();
		FlowStore.DueJobs due = this.store.due(queue);
		Map<String, Long> recent = new HashMap<>();
		this.store.fairKeyPlaces(queue).forEach((key, place) -> {
			long starts = place.window().counted(now, FlowStore.FAIR_SHARE_PERIOD);
			if (starts > 0) {
				recent.put(key, starts);
			}
		});
		Map<String, Long> dueByKey = new HashMap<>(due.byKey());
		if (due.withoutKey() > 0) {
			dueByKey.put("", due.withoutKey());
		}
		long total = recent.values().stream().mapToLong(Long::longValue).sum();
		Set<String> keys = new HashSet<>(dueByKey.keySet());
		keys.addAll(recent.keySet());
		return keys.stream()
			.map((key) -> {
				long starts = recent.getOrDefault(key, 0L);
				return new FairKeyShare(key.isEmpty() ? null : key, dueByKey.getOrDefault(key, 0L), starts,
						(total > 0) ? (double) starts / total : 0);
			})
			.sorted(Comparator.comparingLong(FairKeyShare::due)
				.reversed()
				.thenComparing((share) -> (share.key() != null) ? share.key() : ""))
			.limit(MAX_FAIR_SHARES)
			.toList();
	}

	@Override
	public void declareFairness(LimitSource source, Map<String, Fairness> fairness, Set<String> served) {
		fairness.keySet().forEach(Names::requireQueue);
		// The queue's own row carries the source of its fair turns.
		Map<String, String> sources = new HashMap<>();
		this.store.allWeights()
			.stream()
			.filter((row) -> row.keyPattern().equals(LimitRow.QUEUE))
			.forEach((row) -> sources.put(row.queue(), row.source()));
		Map<String, Fairness> stored = new HashMap<>();
		this.store.allLimits().stream().filter(QueueLimits::isFair).forEach((limits) -> stored.put(limits.queue(),
				limits.fairness()));
		fairness.forEach((queue, declared) -> {
			boolean same = source.name().equals(sources.get(queue)) && declared.equals(stored.get(queue));
			if (!same) {
				putFairness(queue, declared, source);
			}
		});
		sources.forEach((queue, storedSource) -> {
			if (storedSource.equals(source.name()) && served.contains(queue) && !fairness.containsKey(queue)) {
				logger.info("Fair turns of queue '{}' ({}) are no longer declared; removing them", queue, source);
				removeFairness(queue);
			}
		});
	}

	private void putFairness(String queue, Fairness fairness, LimitSource source) {
		this.store.putFairness(queue, fairness, source.name());
		changed(queue);
	}

	@Override
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

	@Override
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

	@Override
	public int pruneWindows() {
		return this.store.pruneWindows();
	}

	@Override
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
