package io.sqlqueue.internal.flow;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

import io.sqlqueue.JobRecord;
import io.sqlqueue.flow.Limit;
import io.sqlqueue.flow.QueueLimits;
import io.sqlqueue.internal.store.ClaimRequest;
import io.sqlqueue.internal.store.ClaimResult;
import io.sqlqueue.internal.store.FlowStore;
import io.sqlqueue.internal.store.FlowLocks;
import io.sqlqueue.internal.store.LimitedJobs;
import io.sqlqueue.internal.store.LimitedClaim;
import io.sqlqueue.internal.store.RateWindow;

/**
 * The claim of a queue with limits (docs/flow-control.md), on every database and claim
 * method alike, in the caller's transaction:
 * <ol>
 * <li>lock the queue's flow row, so that the claims of one queue take turns, each seeing
 * what the ones before it took (the lock is taken by the first statement, so every later
 * statement reads after it);
 * <li>count the queue's running jobs (per concurrency key) and read its rate windows;
 * <li>read due jobs in run order, unlocked, leaving out the keys that are full, and admit
 * each that the limits allow, page by page, so that a key at its limit never holds back
 * the keys behind it;
 * <li>claim the admitted jobs by id, passing over those whose rows another transaction holds
 * ({@code SKIP LOCKED}), and count the starts of those it took in the rate windows; when it
 * passed over some, admit again from the start without them, so that the room they left goes
 * to the jobs after them (at most {@link #MAX_ROUNDS} rounds).
 * </ol>
 * Only the admitted rows are locked, and only those no other transaction holds: a claim never
 * locks a job it does not take, and never waits for a job's row. A caller's transaction that
 * enqueued a job to run after a queued one holds that job's row until it commits; the claim
 * once waited for it while it held the queue's lock, and with it the instance's poll loop, so
 * that nothing of the instance started until the caller committed. SQLite has no row locks:
 * its one writer at a time holds everything, the caller's transaction included.
 * Claims of queues without limits never take the lock and do not change.
 * <p>
 * The admission is flow control's; every statement is the store's ({@link FlowStore}), which
 * runs this claim in the transaction it chooses ({@link LimitedClaim}).
 */
public final class FlowClaim implements LimitedClaim {

	/** Pages of candidates one claim reads at most; the next claim goes on from the start. */
	static final int MAX_PAGES = 4;

	/**
	 * Rounds of admission one claim makes at most: after the first, one more each time it
	 * passed over admitted jobs whose rows another transaction held, to give their room to the
	 * jobs after them.
	 */
	static final int MAX_ROUNDS = 3;

	/** Passed-over jobs after which a claim makes no further round (each round reads without them, by id). */
	static final int MAX_PASSED_OVER = LimitedJobs.MAX_IDS;

	/** Full keys a read leaves out by name at most; jobs of others are read, and refused one by one. */
	static final int MAX_EXCLUDED = 512;

	private final FlowStore flow;

	/** How often a queue's claims here delete its key windows that count for nothing any more. */
	static final Duration PRUNE_INTERVAL = Duration.ofMinutes(1);

	/** The running jobs of each queue at its last claim here: a hint of whether a key may be full. */
	private final Map<String, Integer> runningAtLastClaim = new ConcurrentHashMap<>();

	/** When (by {@link System#nanoTime()}) this instance last pruned each queue's windows. */
	private final Map<String, Long> prunedAt = new ConcurrentHashMap<>();

	/** The limits of the queues that had limits at their last claim here, as read then. */
	private final Map<String, QueueLimits> limited = new ConcurrentHashMap<>();

	/**
	 * Per queue, the keys whose rate limit refused a job at a claim here, and when (epoch
	 * milliseconds on the database's clock) each has room again: until then the claims here
	 * leave them out of their reads by name, as full keys. Windows only fill between now and
	 * then (every claim adds to them), so a key left out has no room; only a change of the
	 * limits can give it some sooner, and that forgets them. Without it, every claim read and
	 * refused the jobs of the same keys again, and jobs of other keys queued behind a few
	 * hundred of them waited for their windows.
	 */
	private final Map<String, Map<String, Long>> rateClosed = new ConcurrentHashMap<>();

	/**
	 * How often an instance looks for keys with jobs queued in a fair queue that are not in its
	 * turns yet: a new key waits about this long for its first turn.
	 */
	public static final Duration FAIR_SCAN_INTERVAL = FairClaim.SCAN_INTERVAL;

	/**
	 * Keys of a fair queue whose first jobs one read of a claim asks for at most: with more
	 * keys due than that, a claim's room is shared among the keys whose turns come first.
	 */
	public static final int FAIR_KEYS_PER_READ = FairClaim.MAX_KEYS_PER_READ;

	/**
	 * How often an instance looks at every key with jobs queued in a fair queue, for the jobs
	 * a look at those enqueued since cannot see (due later than seen, queued again).
	 */
	public static final Duration FAIR_FULL_SCAN_INTERVAL = FairClaim.FULL_SCAN_INTERVAL;

	/** The claim of fair queues, which admits through this one's rate windows. */
	private final FairClaim fair;

	/** The claim of limited queues on this flow store: a {@link LimitedClaim.Factory}. */
	public FlowClaim(FlowStore flow) {
		this.flow = flow;
		this.fair = new FairClaim(flow, this);
	}

	/** Whether the queue had limits at its last claim here. */
	@Override
	public boolean isLimited(String queue) {
		return this.limited.containsKey(queue);
	}

	/**
	 * Looks whether the queue has limits now (after a claim without limits found nothing,
	 * which it also does when the queue got limits); true when it has.
	 */
	@Override
	public boolean checkLimited(String queue) {
		if (!this.flow.locks().hasLimits(queue)) {
			return false;
		}
		this.limited.putIfAbsent(queue, QueueLimits.none(queue));
		return true;
	}

	/**
	 * Claims for the request under the queue's limits, in the current transaction;
	 * {@code null} when the queue has no limits (any more).
	 */
	@Override
	public @Nullable ClaimResult claim(ClaimRequest request, long token) {
		String queue = request.queue();
		QueueLimits known = this.limited.get(queue);
		if (known != null && known.isFair()) {
			this.fair.lookBeforeTheLock(request);
		}
		FlowLocks.FlowLock lock = this.flow.locks().lock(queue);
		if (lock == null) {
			this.limited.remove(queue);
			this.rateClosed.remove(queue);
			return null;
		}
		if (!lock.readCommitted()) {
			throw new FlowStore.NotReadCommittedException();
		}
		QueueLimits limits = this.limited.get(queue);
		if (limits == null || limits.version() != lock.version() || limits.isEmpty()) {
			limits = this.flow.declarations().limits(queue);
			this.limited.put(queue, limits);
			this.rateClosed.remove(queue);
		}
		Instant now = lock.now();
		long nowMillis = now.toEpochMilli();
		Map<String, Long> closedUntil = this.rateClosed.computeIfAbsent(queue, (q) -> new ConcurrentHashMap<>());
		closedUntil.values().removeIf((until) -> until <= nowMillis);
		ClaimResult result = limits.isFair() ? this.fair.claim(request, token, limits, lock, closedUntil)
				: claimUnderLimits(request, token, limits, lock, now, nowMillis, closedUntil);
		if (!result.jobs().isEmpty()) {
			// What the limits allowed rests on the locked row: every claim that starts jobs writes
			// it, so that no two such claims commit without one having seen the other's.
			this.flow.locks().writeLocked(queue);
		}
		return result;
	}

	/** The claim of a queue with limits and no fair turns, at {@code now} (the lock's clock reading, and in millis). */
	private ClaimResult claimUnderLimits(ClaimRequest request, long token, QueueLimits limits,
			FlowLocks.FlowLock lock, Instant now, long nowMillis, Map<String, Long> closedUntil) {
		String queue = request.queue();
		// Where a key may be full, its running jobs are counted before any job is read, so that
		// full keys are left out of the read; otherwise the queue's running jobs are counted by
		// the first read of candidates (and by key only if that count says a key may fill up).
		boolean countByKeyFirst = limits.limitsKeyConcurrency() && mayFillAKey(queue, limits, request.limit());
		LimitedJobs.Running running = countByKeyFirst ? this.flow.limitedJobs().running(queue) : new LimitedJobs.Running(0, Map.of());
		Admission admission = new Admission(limits, nowMillis, running.total(), running.byKey(), lock.window());
		List<JobRecord> claimed = new ArrayList<>();
		Set<Long> passedOver = new LinkedHashSet<>();
		Set<String> windowsRead = new HashSet<>();
		for (int round = 0; round < MAX_ROUNDS && passedOver.size() <= MAX_PASSED_OVER; round++) {
			List<JobRecord> admitted = admit(request, now, request.limit() - claimed.size(), limits, admission,
					countByKeyFirst || round > 0, closedUntil.keySet(), passedOver, windowsRead);
			List<JobRecord> taken = admitted.isEmpty() ? admitted
					: this.flow.limitedJobs().claimAdmitted(request, token, now, admitted);
			claimed.addAll(taken);
			if (taken.size() == admitted.size()) {
				break;
			}
			// Their rows are held (or they are no longer queued): they stay as they are, and
			// their room goes to the jobs after them, read again without them.
			Set<Long> takenIds = new HashSet<>(taken.stream().map(JobRecord::id).toList());
			for (JobRecord job : admitted) {
				if (!takenIds.contains(job.id())) {
					admission.withdraw(job.concurrencyKey());
					passedOver.add(job.id());
				}
			}
		}
		claimed.sort(ClaimResult.RUN_ORDER);
		if (!claimed.isEmpty()) {
			writeWindows(queue, admission);
			pruneWindows(queue, limits, now);
		}
		admission.keysWithoutRateRoom().forEach((key, wait) -> closedUntil.put(key, nowMillis + wait));
		Long wait = admission.millisUntilRateRoom();
		for (long until : closedUntil.values()) {
			wait = Math.min((wait != null) ? wait : Long.MAX_VALUE, until - nowMillis);
		}
		return new ClaimResult(claimed, true, (wait != null) ? Duration.ofMillis(wait) : null,
				admission.heldByConcurrency() || !admission.fullKeys().isEmpty());
	}

	/** Writes the windows with this claim's starts, under the queue's lock. */
	void writeWindows(String queue, Admission admission) {
		Map<String, RateWindow> keyWindows = new LinkedHashMap<>(admission.windowsToWrite());
		RateWindow queueWindow = keyWindows.remove(Admission.QUEUE_WINDOW);
		Set<String> stored = new HashSet<>();
		keyWindows.keySet().stream().filter(admission::isStored).forEach(stored::add);
		this.flow.rateWindows().writeWindows(queue, admission.limits(), queueWindow, keyWindows, stored);
	}

	/**
	 * Whether a key of the queue may be at its limit of running jobs, judging by the queue's
	 * running jobs at its last claim here: when even all of them and a full claim more stay
	 * under the smallest limit of a key, no key can be full, and the claim need not count
	 * running jobs by key before it reads (it counts the queue's running jobs, and by key
	 * only if they are more than that estimate).
	 */
	private boolean mayFillAKey(String queue, QueueLimits limits, int wanted) {
		Integer last = this.runningAtLastClaim.get(queue);
		return last == null || (long) last + wanted >= limits.smallestKeyConcurrency();
	}

	/**
	 * Deletes the queue's key windows that count for nothing any more (every key ever limited
	 * by a rate leaves one), at most once per {@link #PRUNE_INTERVAL} on this instance, under
	 * the lock the claim holds.
	 */
	void pruneWindows(String queue, QueueLimits limits, Instant now) {
		if (!limits.limitsKeyRates()) {
			return;
		}
		long at = System.nanoTime();
		Long last = this.prunedAt.get(queue);
		if (last == null || at - last > PRUNE_INTERVAL.toNanos()) {
			this.prunedAt.put(queue, at);
			this.flow.rateWindows().deleteExpiredWindows(queue, now);
		}
	}

	/**
	 * Reads candidates due at {@code now} (the lock's clock reading, at which the claim starts
	 * them) page by page, leaving out those passed over, and admits those the
	 * limits allow, up to the queue's room and {@code wanted}; the running jobs are counted
	 * already ({@code counted}) or with the first page.
	 */
	private List<JobRecord> admit(ClaimRequest request, Instant now, int wanted, QueueLimits limits,
			Admission admission, boolean counted, Set<String> rateClosed, Set<Long> passedOver,
			Set<String> windowsRead) {
		boolean countRunning = limits.limitsConcurrency() && !counted;
		int room = admission.room(wanted);
		List<JobRecord> admitted = new ArrayList<>();
		if (room == 0) {
			// Read nothing; whether jobs are due is not known, so the limits count as holding them
			// back: the next claim comes when they have room (a rate), or a job ends (running jobs).
			admission.capped(wanted);
			return admitted;
		}
		// The first page reads exactly the room, all of which is admitted unless a key refuses
		// some; each page after it twice what is left.
		int page = room;
		JobRecord last = null;
		boolean moreDue = false;
		for (int pages = 0; pages < MAX_PAGES && admitted.size() < room; pages++) {
			if (pages > 0) {
				page = 2 * (room - admitted.size());
			}
			LimitedJobs.Candidates read = this.flow.limitedJobs().candidates(request, excluded(admission, rateClosed), passedOver,
					last, page, pages == 0 && countRunning, now);
			List<JobRecord> candidates = read.jobs();
			int running = read.running();
			if (running >= 0) {
				this.runningAtLastClaim.put(request.queue(), running);
				if (limits.limitsKeyConcurrency()
						&& (long) running + wanted >= limits.smallestKeyConcurrency()) {
					// Some key may be full after all: count by key before admitting anything.
					LimitedJobs.Running byKey = this.flow.limitedJobs().running(request.queue());
					admission.running(byKey.total(), byKey.byKey());
				}
				else {
					admission.running(running);
				}
				room = admission.room(wanted);
			}
			else if (counted && pages == 0) {
				this.runningAtLastClaim.put(request.queue(), admission.running());
			}
			if (limits.limitsKeyRates()) {
				readWindows(request.queue(), limits, candidates, windowsRead, admission);
			}
			for (JobRecord job : candidates) {
				if (admitted.size() >= room) {
					moreDue = true;
				}
				else if (admission.admit(job.concurrencyKey())) {
					admitted.add(job);
				}
			}
			moreDue |= candidates.size() == page;
			if (candidates.size() < page) {
				break;
			}
			last = candidates.get(candidates.size() - 1);
		}
		if (moreDue && admitted.size() >= room && room < wanted) {
			admission.capped(wanted);
		}
		return admitted;
	}

	/**
	 * Reads the rate windows of the candidates' keys that have a rate limit, those not read
	 * before in this claim, into the admission.
	 */
	void readWindows(String queue, QueueLimits limits, List<JobRecord> candidates, Set<String> read,
			Admission admission) {
		Set<String> keys = new LinkedHashSet<>();
		for (JobRecord job : candidates) {
			String key = job.concurrencyKey();
			Limit limit = limits.limitOf(key);
			if (key != null && limit != null && limit.rate() != null && read.add(key)) {
				keys.add(key);
			}
		}
		if (!keys.isEmpty()) {
			admission.windowsRead(this.flow.rateWindows().windows(queue, keys));
		}
	}

	/**
	 * The keys to leave out of a read, by name, full or without rate room: up to
	 * {@link #MAX_EXCLUDED}, in order (the store pads them, so that few statement texts serve
	 * every count).
	 */
	private static List<String> excluded(Admission admission, Set<String> rateClosed) {
		Set<String> full = admission.fullKeys();
		full.addAll(rateClosed);
		List<String> keys = new ArrayList<>(full);
		if (keys.isEmpty()) {
			return keys;
		}
		keys.sort(null);
		return new ArrayList<>(keys.subList(0, Math.min(keys.size(), MAX_EXCLUDED)));
	}

}
