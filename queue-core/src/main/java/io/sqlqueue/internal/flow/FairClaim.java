package io.sqlqueue.internal.flow;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

import io.sqlqueue.JobRecord;
import io.sqlqueue.flow.QueueLimits;
import io.sqlqueue.internal.store.ClaimRequest;
import io.sqlqueue.internal.store.ClaimResult;
import io.sqlqueue.internal.store.FlowStore;
import io.sqlqueue.internal.store.FairTurnStore;
import io.sqlqueue.internal.store.FlowLocks;
import io.sqlqueue.internal.store.LimitedJobs;
import io.sqlqueue.internal.store.RateWindow;

/**
 * The claim of a fair queue (docs/flow-control.md#fair-turns), under the queue's flow lock
 * that {@link FlowClaim} took: from the highest priority with a job due down, it orders the
 * keys in the queue's turns ({@link FairTurns}), reads just the first due jobs of the keys
 * whose turn it is, and admits them turn by turn under the queue's limits, as an unfair claim
 * admits jobs in run order. A key with nothing due at a priority takes no turn at it, and
 * keeps its place for its jobs at others: it leaves the turns only with nothing due at any
 * priority ({@link #withNothingDue}). One whose limit holds it takes no turn; their turns go
 * to the keys after them. With more keys due than
 * {@link #MAX_KEYS_PER_READ}, the claim's room is shared among the keys whose turns come
 * first, several starts each. Keys with jobs queued enter the turns when a claim looks for
 * them (the jobs enqueued since the last look every {@link #SCAN_INTERVAL} per instance; every
 * key, skipping along the fair index from key to key, every {@link #FULL_SCAN_INTERVAL},
 * looked at before the lock). Passes are written under the lock, so the turns hold across
 * every instance.
 * <p>
 * Through a backlog a claim reads each key past a mark where this instance last took its
 * jobs, and checks the priorities above the one it last served rather than reading the head
 * of the ready jobs: until the next vacuum the head is the index entries of every job claimed
 * since, and a read from it would walk them all, every claim (one key's flood of a million
 * jobs made a claim take a second). As for the unfair claim ({@code JobClaims}), a mark is a
 * hint: a key read past its mark that comes back short is read again from its head in the
 * same claim, and every key is read from its head at least every {@link #HEAD_EVERY}.
 */
final class FairClaim {

	/** Priority levels one claim serves at most; the next claim goes on from the first. */
	static final int MAX_LEVELS = 4;

	/** Reads of keys' first jobs at one priority one claim makes at most. */
	static final int MAX_READS = 3;

	/**
	 * Keys whose first jobs one read asks for at most. When more keys are due than a claim has
	 * room for, the room is shared among the keys whose turn comes first, several starts each
	 * (a quantum of about room / this), rather than one start for each of as many keys as there
	 * is room: a read per key costs an index descent (timed while investigating, a claim of 78
	 * jobs over 78 keys spent 3.5 ms of its 6.2 ms reading them). The passes still move by one stride per
	 * start, so the next claim goes on with the keys after these, and over a round of the
	 * keys each has had its share; a key is at most about one quantum ahead of another.
	 */
	static final int MAX_KEYS_PER_READ = 16;

	/**
	 * Keys in the turns a claim reads first, those whose turns come first (beside the keys a
	 * rate limit holds): enough for its reads, so that a queue of thousands of keys does not
	 * send them all to every claim. A claim that uses them up reads the rest.
	 */
	static final int FIRST_KEYS = MAX_READS * MAX_KEYS_PER_READ;

	/**
	 * How often this instance looks at the jobs enqueued since its last look for keys that are
	 * not in the turns yet: a new key waits about this long for its first turn. A look reads
	 * those jobs by id, so it costs what was enqueued since, whatever the backlog.
	 */
	static final Duration SCAN_INTERVAL = Duration.ofMillis(100);

	/**
	 * How often this instance looks at every key with jobs queued at a priority (by skipping
	 * along the fair index from key to key), and at once when a job is due and no key in the
	 * turns has one: for the jobs a quick look cannot see, those queued again (retried,
	 * released, reaped) and those whose enqueue committed after a later id was seen. Until the
	 * next vacuum each key's range starts with the index entries of its claimed jobs, which
	 * this look walks: it is the costly one, made before the claim takes the queue's lock
	 * ({@link #lookBeforeTheLock}) but for the first, the one made at once, and on SQLite.
	 */
	static final Duration FULL_SCAN_INTERVAL = Duration.ofSeconds(5);

	/**
	 * Priorities with jobs due a claim reads a key at, at most, before it lets the key leave
	 * the turns for having nothing due ({@link #withNothingDue}).
	 */
	static final int MAX_LEVELS_TO_LEAVE = 16;

	/** How long a key is read past its mark before it is read from its head again. */
	static final Duration HEAD_EVERY = Duration.ofSeconds(1);

	private final FlowStore flow;

	private final FlowClaim limited;

	/** This instance's looks for keys, by queue. */
	private final Map<String, Looks> looks = new ConcurrentHashMap<>();

	/** The priority this instance's last claim of each queue served first. */
	private final Map<String, Integer> servedPriority = new ConcurrentHashMap<>();

	/** Per queue and key, where this instance last took the key's jobs. */
	private final Map<String, Map<String, KeyMark>> marks = new ConcurrentHashMap<>();

	FairClaim(FlowStore flow, FlowClaim limited) {
		this.flow = flow;
		this.limited = limited;
	}

	ClaimResult claim(ClaimRequest request, long token, QueueLimits limits, FlowLocks.FlowLock lock,
			Map<String, Long> closedUntil) {
		String queue = request.queue();
		Instant now = lock.now();
		long nowMillis = now.toEpochMilli();
		LimitedJobs.Running running = limits.limitsConcurrency() ? this.flow.limitedJobs().running(queue)
				: new LimitedJobs.Running(0, Map.of());
		Admission admission = new Admission(limits, nowMillis, running.total(), running.byKey(), lock.window());
		Map<String, KeyMark> queueMarks = this.marks.computeIfAbsent(queue, (q) -> new ConcurrentHashMap<>());
		List<Map.Entry<String, FairTurnStore.FairKey>> order = null;
		boolean wholeOrder = false;
		Map<String, FairTurnStore.FairKey> stored = new HashMap<>();
		FairTurns turns = new FairTurns(limits.fairness());
		Looks looks = this.looks.computeIfAbsent(queue, (q) -> new Looks());
		// Keys read with nothing due at a priority in this claim, and those read with jobs due at one.
		Set<String> readEmpty = new HashSet<>();
		Set<String> foundDue = new HashSet<>();
		List<Integer> levels = new ArrayList<>();
		boolean bottomReached = false;
		Set<String> windowsRead = new HashSet<>();
		List<JobRecord> claimed = new ArrayList<>();
		boolean moreDue = false;
		Integer priority = null;
		Integer firstServed = null;
		boolean lookedAtEvery = false;
		for (int level = 0; level < MAX_LEVELS && admission.room(request.limit() - claimed.size()) > 0; level++) {
			priority = nextPriority(request, now, priority, level == 0);
			if (priority == null) {
				bottomReached = true;
				break;
			}
			int at = priority;
			levels.add(at);
			Looked looked = lookForKeys(queue, priority, false);
			lookedAtEvery |= looked != null && looked.everyKey();
			if (looked != null) {
				order = FairTurnStore.inTurnOrder(looked.keys());
				wholeOrder = true;
			}
			else if (order == null) {
				int first = FIRST_KEYS + closedUntil.size() + admission.fullKeys().size() + looks.countNothingAt(at);
				order = FairTurnStore.inTurnOrder(this.flow.fairTurns().firstFairKeyPlaces(queue, first));
				wholeOrder = order.size() < first;
			}
			boolean anyClosed = false;
			List<JobRecord> admitted = new ArrayList<>();
			Map<String, Integer> read = new HashMap<>();
			Map<String, List<JobRecord>> heads = new HashMap<>();
			Map<String, FairTurnStore.Mark> from = new HashMap<>();
			Set<String> inTurn = new HashSet<>();
			int next = 0;
			for (int reads = 0; reads < MAX_READS; reads++) {
				int room = admission.room(request.limit() - claimed.size() - admitted.size());
				if (room == 0) {
					moreDue = true;
					break;
				}
				Set<String> closed = admission.fullKeys();
				closed.addAll(closedUntil.keySet());
				Map<String, Long> keys = new HashMap<>();
				// The keys whose turn may come in this read: a few more than the room, as some have nothing due.
				while (keys.size() < Math.min(room + 8, MAX_KEYS_PER_READ)) {
					if (next == order.size()) {
						if (wholeOrder) {
							break;
						}
						// The first keys are used up: every key, in turn order (those seen are skipped below).
						order = FairTurnStore.inTurnOrder(this.flow.fairTurns().fairKeyPlaces(queue));
						wholeOrder = true;
						next = 0;
						continue;
					}
					Map.Entry<String, FairTurnStore.FairKey> turn = order.get(next++);
					String key = turn.getKey();
					stored.putIfAbsent(key, turn.getValue());
					anyClosed |= closed.contains(key);
					// A key with nothing due at this priority takes no turn at it, and keeps its place for the others.
					if (!looks.hasNothingAt(key, at) && !closed.contains(key) && inTurn.add(key)) {
						keys.put(key, turn.getValue().pass());
					}
				}
				turns.due(keys);
				if (turns.isEmpty()) {
					if (!admitted.isEmpty() || anyClosed || lookedAtEvery) {
						break;
					}
					// A job is due at this priority and no key in the turns had one (not for a limit):
					// its key is one a quick look cannot see; look at every key now, not in 5 s.
					order = FairTurnStore.inTurnOrder(lookForKeys(queue, priority, true).keys());
					lookedAtEvery = true;
					next = 0;
					continue;
				}
				List<String> plan = turns.plan(room);
				Map<String, Integer> wanted = new HashMap<>();
				plan.forEach((key) -> wanted.merge(key, 1, Integer::sum));
				wanted.replaceAll((key, count) -> count + read.getOrDefault(key, 0));
				Map<String, List<JobRecord>> found = readHeads(request, now, priority, wanted, from, queueMarks);
				if (limits.limitsKeyRates()) {
					this.limited.readWindows(queue, limits, found.values().stream().flatMap(List::stream).toList(),
							windowsRead, admission);
				}
				for (Map.Entry<String, Integer> want : wanted.entrySet()) {
					String key = want.getKey();
					List<JobRecord> jobs = found.getOrDefault(key, List.of());
					int before = Math.min(read.getOrDefault(key, 0), jobs.size());
					heads.put(key, new ArrayList<>(jobs.subList(before, jobs.size())));
					read.put(key, want.getValue());
					if (!jobs.isEmpty()) {
						foundDue.add(key);
					}
					if (jobs.size() < want.getValue()) {
						turns.drop(key);
						if (jobs.isEmpty()) {
							// Nothing due at this priority: no turn at it until a look finds a job of the key
							// there again; the key leaves the turns only with nothing due at any priority.
							readEmpty.add(key);
							looks.noteNothingAt(key, at);
						}
					}
				}
				for (String key : plan) {
					if (admitted.size() + claimed.size() >= request.limit()) {
						break;
					}
					List<JobRecord> jobs = heads.get(key);
					if (jobs == null || jobs.isEmpty()) {
						continue;
					}
					if (admission.admit(key.isEmpty() ? null : key)) {
						admitted.add(jobs.remove(0));
						turns.start(key);
					}
					else {
						turns.drop(key);
						jobs.clear();
						if (admission.room(1) == 0) {
							break;
						}
					}
				}
				if (admitted.size() + claimed.size() >= request.limit()) {
					moreDue = true;
					break;
				}
			}
			List<JobRecord> taken = admitted.isEmpty() ? admitted
					: this.flow.limitedJobs().claimAdmitted(request, token, now, admitted);
			Set<Long> takenIds = new HashSet<>(taken.stream().map(JobRecord::id).toList());
			for (JobRecord job : admitted) {
				String key = (job.concurrencyKey() != null) ? job.concurrencyKey() : "";
				if (takenIds.contains(job.id())) {
					mark(queueMarks, key, job, from.get(key));
				}
				else {
					// Its row is held (or it is no longer queued): no start, no turn.
					admission.withdraw(job.concurrencyKey());
					turns.unstart(key);
				}
			}
			if (firstServed == null && !taken.isEmpty()) {
				firstServed = priority;
			}
			claimed.addAll(taken);
		}
		if (firstServed != null) {
			this.servedPriority.put(queue, firstServed);
		}
		else {
			this.servedPriority.remove(queue);
		}
		Set<String> leaving = new HashSet<>(readEmpty);
		leaving.removeAll(foundDue);
		leaving.removeAll(turns.started().keySet());
		leaving = withNothingDue(request, now, leaving, levels, bottomReached, looks);
		leaving.forEach(queueMarks::remove);
		looks.forget(leaving);
		this.flow.fairTurns().writeFairTurns(queue, turns.passesOfStarted(), turns.started(), stored, leaving, now);
		if (!claimed.isEmpty()) {
			this.limited.writeWindows(queue, admission);
			this.limited.pruneWindows(queue, limits, now);
		}
		if (moreDue && claimed.size() < request.limit()) {
			admission.capped(request.limit());
		}
		admission.keysWithoutRateRoom().forEach((key, wait) -> closedUntil.put(key, nowMillis + wait));
		Long wait = admission.millisUntilRateRoom();
		for (long until : closedUntil.values()) {
			wait = Math.min((wait != null) ? wait : Long.MAX_VALUE, until - nowMillis);
		}
		return new ClaimResult(claimed, true, (wait != null) ? Duration.ofMillis(wait) : null,
				admission.heldByConcurrency() || !admission.fullKeys().isEmpty());
	}

	/**
	 * Of the keys this claim read with nothing due at a priority, those with nothing due at
	 * any: they leave the turns. A key with jobs due at another priority keeps its place (its
	 * pass), so that it takes its turns there with the others (docs/flow-control.md#fair-turns).
	 * The claim served priorities one after another from the highest with a job due
	 * ({@code levels}, down to the lowest when {@code bottomReached}); each key is read at
	 * those where this instance does not know it has nothing due, then at the priorities
	 * below them, up to {@link #MAX_LEVELS_TO_LEAVE} in all. A key not settled by then leaves
	 * (as every key with nothing due at the priority served did before), and comes back with a
	 * look for keys.
	 */
	private Set<String> withNothingDue(ClaimRequest request, Instant now, Set<String> keys, List<Integer> levels,
			boolean bottomReached, Looks looks) {
		Set<String> left = new HashSet<>(keys);
		Integer level = null;
		for (int checked = 0; checked < MAX_LEVELS_TO_LEAVE && !left.isEmpty(); checked++) {
			if (checked < levels.size()) {
				level = levels.get(checked);
			}
			else {
				level = bottomReached ? null : this.flow.fairTurns().fairPriority(request, now, level);
				if (level == null) {
					break;
				}
			}
			int at = level;
			List<String> unknown = left.stream().filter((key) -> !looks.hasNothingAt(key, at)).sorted().toList();
			for (int start = 0; start < unknown.size(); start += MAX_KEYS_PER_READ) {
				Map<String, Integer> wanted = new HashMap<>();
				unknown.subList(start, Math.min(unknown.size(), start + MAX_KEYS_PER_READ))
					.forEach((key) -> wanted.put(key, 1));
				Map<String, List<JobRecord>> found = this.flow.fairTurns().fairHeads(request, now, at, wanted, Map.of());
				for (String key : wanted.keySet()) {
					if (found.getOrDefault(key, List.of()).isEmpty()) {
						looks.noteNothingAt(key, at);
					}
					else {
						left.remove(key);
					}
				}
			}
		}
		return left;
	}

	/**
	 * The priority to serve: first the one this instance served last, unless a job is due
	 * above it (or there is none: then the head of the ready jobs says); then each lower one
	 * with a job due.
	 */
	private Integer nextPriority(ClaimRequest request, Instant now, Integer served, boolean first) {
		if (!first) {
			return this.flow.fairTurns().fairPriority(request, now, served);
		}
		Integer last = this.servedPriority.get(request.queue());
		if (last != null && !this.flow.fairTurns().fairDueAbove(request, now, last)) {
			return last;
		}
		return this.flow.fairTurns().fairPriority(request, now, null);
	}

	/**
	 * The first due jobs of the keys: each past its mark where it has a fresh one of this
	 * priority, and those that come back short from there read again from their heads.
	 * {@code from} keeps where each key was read from in this claim.
	 */
	private Map<String, List<JobRecord>> readHeads(ClaimRequest request, Instant now, int priority,
			Map<String, Integer> wanted, Map<String, FairTurnStore.Mark> from, Map<String, KeyMark> queueMarks) {
		long at = System.nanoTime();
		for (String key : wanted.keySet()) {
			from.computeIfAbsent(key, (k) -> {
				KeyMark mark = queueMarks.get(k);
				return (mark != null && mark.priority() == priority && at - mark.headAt() < HEAD_EVERY.toNanos())
						? mark.position() : FairTurnStore.Mark.HEAD;
			});
		}
		Map<String, List<JobRecord>> found = this.flow.fairTurns().fairHeads(request, now, priority, wanted, from);
		Map<String, Integer> again = new HashMap<>();
		wanted.forEach((key, count) -> {
			if (!FairTurnStore.Mark.HEAD.equals(from.get(key)) && found.getOrDefault(key, List.of()).size() < count) {
				// Short past the mark: jobs may wait behind it.
				from.put(key, FairTurnStore.Mark.HEAD);
				again.put(key, count);
			}
		});
		if (!again.isEmpty()) {
			found.putAll(this.flow.fairTurns().fairHeads(request, now, priority, again, from));
			again.keySet().forEach((key) -> found.putIfAbsent(key, List.of()));
		}
		return found;
	}

	/** Marks where this claim took the key's jobs, keeping when it last read the key from its head. */
	private static void mark(Map<String, KeyMark> queueMarks, String key, JobRecord job, FairTurnStore.Mark readFrom) {
		KeyMark before = queueMarks.get(key);
		long headAt = (readFrom == FairTurnStore.Mark.HEAD || before == null) ? System.nanoTime() : before.headAt();
		// A key's jobs are admitted in its run order: the last one taken is where its next read starts.
		queueMarks.put(key, new KeyMark(job.priority(), new FairTurnStore.Mark(job.runAt(), job.id()), headAt));
	}

	/**
	 * Before the claim takes the queue's lock: when it is time for this instance's look at
	 * every key with jobs queued at a priority it has looked at before, makes that look here
	 * (one priority per claim, the one looked at longest ago), for a claim to take under the
	 * lock. The look walks the index entries of the jobs claimed since the last vacuum at the
	 * start of each key's range (a flood's made it take 400 ms): made under the lock, every
	 * claim of the queue on every instance waited for it.
	 */
	void lookBeforeTheLock(ClaimRequest request) {
		if (!this.flow.locks().mayReadBeforeTheLock()) {
			return;
		}
		String queue = request.queue();
		Looks looks = this.looks.computeIfAbsent(queue, (q) -> new Looks());
		long at = System.nanoTime();
		Map.Entry<Integer, Long> stalest = null;
		for (Map.Entry<Integer, Long> full : looks.fullAt.entrySet()) {
			if (at - full.getValue() >= FULL_SCAN_INTERVAL.toNanos() && !looks.made.containsKey(full.getKey())
					&& (stalest == null || full.getValue() < stalest.getValue())) {
				stalest = full;
			}
		}
		if (stalest == null) {
			return;
		}
		looks.made.put(stalest.getKey(), lookAtEveryKey(queue, stalest.getKey(), at));
	}

	/** Every key with jobs queued at the priority: ids up to here are covered, later ones by the next quick look. */
	private Look lookAtEveryKey(String queue, int priority, long at) {
		long upTo = this.flow.fairTurns().lastJobId();
		return new Look(this.flow.fairTurns().fairKeys(queue, priority), upTo, at);
	}

	/**
	 * Looks for keys with jobs queued at a priority of a fair queue that are not in its turns
	 * (among the jobs enqueued since the last look every {@link #SCAN_INTERVAL}, at every key
	 * every {@link #FULL_SCAN_INTERVAL} or when {@code now}), and puts them into the turns at
	 * the smallest pass there is; under the queue's lock. Returns the keys in the turns
	 * afterwards, or {@code null} when it was not time to look.
	 */
	private @Nullable Looked lookForKeys(String queue, int priority, boolean now) {
		Looks looks = this.looks.computeIfAbsent(queue, (q) -> new Looks());
		long at = System.nanoTime();
		Long full = looks.fullAt.get(priority);
		List<String> found;
		Look every = now ? null : looks.made.remove(priority);
		// After the first, the periodic look at every key is made before the lock (lookBeforeTheLock),
		// where the database lets a claim read first.
		if (every == null && (now || full == null
				|| (!this.flow.locks().mayReadBeforeTheLock() && at - full >= FULL_SCAN_INTERVAL.toNanos()))) {
			every = lookAtEveryKey(queue, priority, at);
		}
		if (every != null) {
			found = every.keys();
			looks.forgetAt(found, priority);
			looks.fullAt.put(priority, every.at());
			looks.quickAt = at;
			looks.lastId = Math.max(looks.lastId, every.upTo());
		}
		else if (at - looks.quickAt >= SCAN_INTERVAL.toNanos()) {
			FairTurnStore.KeysSince since = this.flow.fairTurns().fairKeysSince(queue, looks.lastId);
			found = since.keys();
			looks.forget(found);
			looks.quickAt = at;
			looks.lastId = Math.max(looks.lastId, since.lastId());
		}
		else {
			return null;
		}
		Map<String, FairTurnStore.FairKey> inTurns = new HashMap<>(this.flow.fairTurns().fairKeyPlaces(queue));
		List<String> entering = found.stream().filter((key) -> !inTurns.containsKey(key)).distinct().toList();
		if (!entering.isEmpty()) {
			long smallest = inTurns.values().stream().mapToLong(FairTurnStore.FairKey::pass).min().orElse(0);
			this.flow.fairTurns().enterTurns(queue, entering, smallest);
			entering.forEach((key) -> inTurns.put(key, new FairTurnStore.FairKey(smallest, RateWindow.EMPTY)));
		}
		return new Looked(inTurns, every != null);
	}

	/** The keys in the turns after a look, and whether it looked at every key. */
	private record Looked(Map<String, FairTurnStore.FairKey> keys, boolean everyKey) {
	}

	/** A look at every key made before a claim took the lock: the keys, the last id it covers, and when. */
	private record Look(List<String> keys, long upTo, long at) {
	}

	/** This instance's looks for keys of one queue. */
	private static final class Looks {

		/** Looks at every key made before the lock, by priority, for the next claim to take. */
		final Map<Integer, Look> made = new ConcurrentHashMap<>();

		/** When (by {@link System#nanoTime()}) it last looked at every key, by priority. */
		final Map<Integer, Long> fullAt = new ConcurrentHashMap<>();

		/** When it last looked at the jobs enqueued since the look before. */
		volatile long quickAt;

		/** The largest job id its looks have covered. */
		volatile long lastId;

		/**
		 * By key, the priorities at which a claim here read the key with nothing due: it takes
		 * no turn at them (and is not read there) until a look finds a job of the key there,
		 * as a key that left the turns would not. It keeps its place for its jobs at others.
		 */
		final Map<String, Set<Integer>> nothingAt = new ConcurrentHashMap<>();

		boolean hasNothingAt(String key, int priority) {
			Set<Integer> priorities = this.nothingAt.get(key);
			return priorities != null && priorities.contains(priority);
		}

		void noteNothingAt(String key, int priority) {
			this.nothingAt.computeIfAbsent(key, (k) -> ConcurrentHashMap.newKeySet()).add(priority);
		}

		int countNothingAt(int priority) {
			return (int) this.nothingAt.values().stream().filter((priorities) -> priorities.contains(priority)).count();
		}

		/** A look found jobs of these keys queued (at any priority). */
		void forget(Collection<String> keys) {
			keys.forEach(this.nothingAt::remove);
		}

		/** A look at every key found jobs of these keys queued at this priority. */
		void forgetAt(Collection<String> keys, int priority) {
			for (String key : keys) {
				this.nothingAt.computeIfPresent(key, (k, priorities) -> {
					priorities.remove(priority);
					return priorities.isEmpty() ? null : priorities;
				});
			}
		}

	}

	/** Where this instance last took a key's jobs, at which priority, and when it last read the key from its head. */
	private record KeyMark(int priority, FairTurnStore.Mark position, long headAt) {
	}

}
