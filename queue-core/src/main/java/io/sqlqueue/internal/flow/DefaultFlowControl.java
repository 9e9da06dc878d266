package io.sqlqueue.internal.flow;

import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;
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
import io.sqlqueue.internal.store.FairTurnStore;
import io.sqlqueue.internal.store.LimitedJobs;
import io.sqlqueue.internal.store.WeightRow;
import io.sqlqueue.internal.store.LimitRow;

/**
 * The {@link FlowControl} the starter builds.
 * <p>
 * <b>Declared by live instances.</b> An instance that declares limits or fair turns from its
 * code ({@link #declare}, {@link #declareFairness}) keeps them declared: at start-up and
 * then at every {@link #keepDeclarations} (each beat of the Manager's instance row in the
 * starter, every heartbeat interval), it moves each one's {@code declared_until} to the
 * database's clock plus three refreshes. A limit (or turns) of a source this instance
 * declares, on a queue it serves, that its code does not declare is removed only once that
 * time has passed: no live instance has declared it for three refreshes (the time after
 * which an instance's row shows as gone). So an instance of an older version, started
 * beside a newer one, leaves the newer one's limits in force, and a limit that no running
 * version declares any more is removed within about four refreshes of the last instance
 * that declared it going away. A refresh only keeps a declaration; it never writes a
 * limit's values, which are written at start-up only, so two live versions that declare one
 * limit differently do not take turns rewriting it. Limits set through the API are never
 * removed by a declaration.
 */
public class DefaultFlowControl implements FlowControl {

	private static final Logger logger = LoggerFactory.getLogger(DefaultFlowControl.class);

	private final FlowStore store;

	private final List<Consumer<Set<String>>> changeListeners = new CopyOnWriteArrayList<>();

	/** How often this instance keeps its declarations; they last three times as long. */
	private volatile Duration declarationRefresh = Duration.ofSeconds(20);

	/** The limits (queue, key pattern) this instance declared, by source: empty until it has. */
	private volatile Map<LimitSource, Set<List<String>>> declaredLimits = Map.of();

	/** The queues whose fair turns this instance declared, by source. */
	private volatile Map<LimitSource, Set<String>> declaredFairness = Map.of();

	/** The queues this instance served when it last declared. */
	private volatile Set<String> served = Set.of();

	public DefaultFlowControl(FlowStore store) {
		this.store = store;
	}

	/**
	 * How often this instance keeps the limits and fair turns it declared declared (default
	 * 20 s, the Manager's heartbeat interval): {@link #keepDeclarations} is to be called that
	 * often. A declaration not kept for three times as long counts as gone. Returns this.
	 */
	public DefaultFlowControl withDeclarationRefresh(Duration every) {
		if (every.isNegative() || every.isZero()) {
			throw new IllegalArgumentException("The declaration refresh must be positive, not " + every);
		}
		this.declarationRefresh = every;
		return this;
	}

	private Duration declarationLifetime() {
		return this.declarationRefresh.multipliedBy(3);
	}

	/**
	 * Every declaration refresh, once this instance has declared: keeps what it declared
	 * declared, and removes the limits and fair turns of its sources, on the queues it
	 * serves, that no live instance declares any more. Row by row, each in a transaction of
	 * its own that passes over a row another transaction holds: what is missed now is done
	 * at the next refresh. A failure is logged, and tried again at the next refresh.
	 */
	public void keepDeclarations() {
		Map<LimitSource, Set<List<String>>> limits = this.declaredLimits;
		Map<LimitSource, Set<String>> fairness = this.declaredFairness;
		if (limits.isEmpty() && fairness.isEmpty()) {
			return;
		}
		try {
			Duration lifetime = declarationLifetime();
			Set<List<String>> limitsHere = new HashSet<>();
			limits.values().forEach(limitsHere::addAll);
			limitsHere.forEach((limit) -> this.store.declarations().keepDeclaredUnlessHeld(limit.get(0), limit.get(1), lifetime));
			Set<String> fairHere = new HashSet<>();
			fairness.values().forEach(fairHere::addAll);
			fairHere.forEach((queue) -> this.store.declarations().keepFairnessDeclaredUnlessHeld(queue, lifetime));
			Set<String> served = this.served;
			for (LimitRow row : this.store.declarations().all()) {
				LimitSource source = sourceOf(row.source());
				List<String> limit = List.of(row.queue(), row.keyPattern());
				if (source != null && limits.containsKey(source) && served.contains(row.queue())
						&& !limits.get(source).contains(limit)
						&& this.store.declarations().removeUndeclared(row.queue(), row.keyPattern(), row.source(), true)) {
					logger.info("Limit of {} ({}) has been declared by no live instance for {}; removed it",
							where(row.queue(), row.keyPattern()), source, lifetime);
					changed(row.queue());
				}
			}
			for (WeightRow row : this.store.declarations().allWeights()) {
				LimitSource source = sourceOf(row.source());
				if (row.keyPattern().equals(LimitRow.QUEUE) && source != null && fairness.containsKey(source)
						&& served.contains(row.queue()) && !fairness.get(source).contains(row.queue())
						&& this.store.declarations().removeFairnessUndeclared(row.queue(), row.source(), true)) {
					logger.info("Fair turns of queue '{}' ({}) have been declared by no live instance for {}; "
							+ "removed them", row.queue(), source, lifetime);
					changed(row.queue());
				}
			}
		}
		catch (RuntimeException ex) {
			logger.warn("sqlqueue could not keep its limits declared; trying again in {}", this.declarationRefresh,
					ex);
		}
	}

	private static @Nullable LimitSource sourceOf(String name) {
		for (LimitSource source : LimitSource.values()) {
			if (source.name().equals(name)) {
				return source;
			}
		}
		return null;
	}

	@Override
	public List<QueueLimits> all() {
		return this.store.declarations().allLimits();
	}

	@Override
	public QueueLimits limits(String queue) {
		return this.store.declarations().limits(Names.requireQueue(queue));
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
		boolean removed = this.store.declarations().removeFairness(Names.requireQueue(queue));
		changed(queue);
		return removed;
	}

	@Override
	public List<FairKeyShare> fairShares(String queue) {
		if (!this.store.declarations().limits(Names.requireQueue(queue)).isFair()) {
			return List.of();
		}
		long now = this.store.locks().now().toEpochMilli();
		LimitedJobs.DueJobs due = this.store.limitedJobs().due(queue);
		Map<String, Long> recent = new HashMap<>();
		this.store.fairTurns().fairKeyPlaces(queue).forEach((key, place) -> {
			long starts = place.window().counted(now, FairTurnStore.FAIR_SHARE_PERIOD);
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
		this.store.declarations().allWeights()
			.stream()
			.filter((row) -> row.keyPattern().equals(LimitRow.QUEUE))
			.forEach((row) -> sources.put(row.queue(), row.source()));
		Map<String, Fairness> stored = new HashMap<>();
		this.store.declarations().allLimits().stream().filter(QueueLimits::isFair).forEach((limits) -> stored.put(limits.queue(),
				limits.fairness()));
		fairness.forEach((queue, declared) -> {
			boolean same = source.name().equals(sources.get(queue)) && declared.equals(stored.get(queue));
			if (!same) {
				putFairness(queue, declared, source);
			}
		});
		this.store.declarations().keepFairnessDeclared(fairness.keySet(), declarationLifetime());
		Map<LimitSource, Set<String>> declaredHere = new HashMap<>(this.declaredFairness);
		declaredHere.put(source, Set.copyOf(fairness.keySet()));
		this.declaredFairness = Map.copyOf(declaredHere);
		this.served = Set.copyOf(served);
		sources.forEach((queue, storedSource) -> {
			if (storedSource.equals(source.name()) && served.contains(queue) && !fairness.containsKey(queue)) {
				if (this.store.declarations().removeFairnessUndeclared(queue, storedSource, false)) {
					logger.info("Fair turns of queue '{}' ({}) are no longer declared; removed them", queue, source);
					changed(queue);
				}
				else {
					logger.info("Fair turns of queue '{}' ({}) are not declared by this application, but by another "
							+ "live instance; they stay", queue, source);
				}
			}
		});
	}

	private void putFairness(String queue, Fairness fairness, LimitSource source) {
		this.store.declarations().putFairness(queue, fairness, source.name());
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
		List<LimitRow> stored = this.store.declarations().all();
		for (LimitDefinition limit : limits) {
			boolean same = stored.stream()
				.anyMatch((row) -> row.queue().equals(limit.queue()) && row.keyPattern().equals(limit.keys())
						&& row.limit().equals(limit.limit()) && row.source().equals(source.name()));
			if (!same) {
				put(limit, source);
			}
		}
		this.store.declarations().keepDeclared(declared, declarationLifetime());
		Map<LimitSource, Set<List<String>>> declaredHere = new HashMap<>(this.declaredLimits);
		declaredHere.put(source, Set.copyOf(declared));
		this.declaredLimits = Map.copyOf(declaredHere);
		this.served = Set.copyOf(served);
		stored.stream()
			.filter((row) -> row.source().equals(source.name()) && served.contains(row.queue())
					&& !declared.contains(List.of(row.queue(), row.keyPattern())))
			.forEach((row) -> {
				if (this.store.declarations().removeUndeclared(row.queue(), row.keyPattern(), row.source(), false)) {
					logger.info("Limit of {} ({}) is no longer declared; removed it",
							where(row.queue(), row.keyPattern()), source);
					changed(row.queue());
				}
				else {
					logger.info("Limit of {} ({}) is not declared by this application, but by another live "
							+ "instance; it stays", where(row.queue(), row.keyPattern()), source);
				}
			});
	}

	@Override
	public Map<String, Map<String, Long>> throttled() {
		// Read without taking the queues' locks: a moment's view.
		Map<String, Map<String, Long>> held = new LinkedHashMap<>();
		long now = this.store.locks().now().toEpochMilli();
		for (QueueLimits limits : this.store.declarations().allLimits()) {
			String queue = limits.queue();
			LimitedJobs.Running running = this.store.limitedJobs().running(queue);
			Admission admission = new Admission(limits, now, running.total(), running.byKey(),
					this.store.rateWindows().queueWindow(queue));
			admission.windowsRead(this.store.rateWindows().keyWindows(queue));
			LimitedJobs.DueJobs due = this.store.limitedJobs().due(queue);
			held.put(queue, admission.heldBack(due.byKey(), due.withoutKey()));
		}
		return held;
	}

	@Override
	public int pruneWindows() {
		return this.store.rateWindows().pruneWindows();
	}

	@Override
	public void addChangeListener(Consumer<Set<String>> listener) {
		this.changeListeners.add(listener);
	}

	private void put(LimitDefinition limit, LimitSource source) {
		this.store.declarations().put(limit.queue(), limit.keys(), limit.limit(), source.name());
		changed(limit.queue());
	}

	private boolean remove(String queue, String keys) {
		boolean removed = this.store.declarations().remove(queue, keys);
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
