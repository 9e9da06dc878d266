package io.sqlqueue.internal.flow;

import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import io.sqlqueue.flow.Limit;
import io.sqlqueue.flow.QueueLimits;
import io.sqlqueue.flow.RateLimit;
import io.sqlqueue.internal.store.RateWindow;

/**
 * What one claim of a limited queue may start, decided job by job in run order: the
 * queue's limits and those of each job's concurrency key, against the jobs running now and
 * the starts counted in the rate windows, all read under the queue's lock on the database's
 * clock ({@code now}, epoch milliseconds). Not thread-safe: one per claim.
 */
public final class Admission {

	/** The rate window of the queue's own limit, beside those of its keys. */
	public static final String QUEUE_WINDOW = "";

	/** Why due jobs wait: the tag {@code limit} of {@code sqlqueue.jobs.throttled}. */
	public static final String QUEUE_CONCURRENCY = "queue-concurrency";

	public static final String QUEUE_RATE = "queue-rate";

	public static final String KEY_CONCURRENCY = "key-concurrency";

	public static final String KEY_RATE = "key-rate";

	private final QueueLimits limits;

	private final long now;

	private int running;

	private Map<String, Integer> runningByKey;

	private final Map<String, RateWindow> windows = new HashMap<>();

	private final Set<String> stored = new HashSet<>();

	private final Map<String, Integer> takenByKey = new LinkedHashMap<>();

	private final Set<String> closed = new HashSet<>();

	private int taken;

	/** Starts admitted and then given back ({@link #withdraw}), in all and by key. */
	private int withdrawn;

	private final Map<String, Integer> withdrawnByKey = new HashMap<>();

	private boolean concurrencyHeld;

	/** The windows (by key, {@link #QUEUE_WINDOW} for the queue's) whose rate limit held something back. */
	private final Set<String> rateHeld = new HashSet<>();

	/**
	 * @param running the queue's running jobs
	 * @param runningByKey of those, how many each concurrency key has
	 * @param queueWindow the queue's own rate window as stored, {@code null} when none is
	 */
	public Admission(QueueLimits limits, long now, int running, Map<String, Integer> runningByKey,
			@Nullable RateWindow queueWindow) {
		this.limits = limits;
		this.now = now;
		this.running = running;
		this.runningByKey = runningByKey;
		if (queueWindow != null) {
			this.windows.put(QUEUE_WINDOW, queueWindow);
			this.stored.add(QUEUE_WINDOW);
		}
	}

	public QueueLimits limits() {
		return this.limits;
	}

	/** The queue's running jobs, as counted. */
	public int running() {
		return this.running;
	}

	/**
	 * The queue's running jobs, when they were counted after this admission was made (with the
	 * first candidates read, in one statement); before any job is admitted.
	 */
	public void running(int running) {
		running(running, this.runningByKey);
	}

	/** The queue's running jobs, in all and by key, counted after this admission was made; before any job is admitted. */
	public void running(int running, Map<String, Integer> runningByKey) {
		if (this.taken > 0) {
			throw new IllegalStateException("The running jobs are counted before any job is admitted");
		}
		this.running = running;
		this.runningByKey = runningByKey;
	}

	/** The most of {@code wanted} that the queue's own limits allow now; notes nothing as held back. */
	public int room(int wanted) {
		return (int) Math.max(0, Math.min(wanted, queueRoom(wanted, false)));
	}

	/**
	 * The claim took all the room the queue's own limits left it, fewer than {@code wanted},
	 * and due jobs may be left: notes the limits that capped it as holding jobs back. A claim
	 * that found no more due jobs holds nothing back, so an idle limited queue is not polled
	 * again before its time.
	 */
	public void capped(int wanted) {
		queueRoom(wanted, true);
	}

	/** Keys whose jobs cannot start now for the jobs they have running: a read of candidates can leave them out. */
	public Set<String> fullKeys() {
		Set<String> full = new HashSet<>(this.closed);
		this.runningByKey.forEach((key, jobs) -> {
			Limit limit = this.limits.limitOf(key);
			if (limit != null && limit.concurrency() != null && jobs >= limit.concurrency()) {
				full.add(key);
			}
		});
		return full;
	}

	/** The stored windows of the keys read; a key without one has no starts counted yet. */
	public void windowsRead(Map<String, RateWindow> found) {
		this.windows.putAll(found);
		this.stored.addAll(found.keySet());
	}

	/**
	 * Takes one start for a job with this key ({@code null} for none) when the limits allow
	 * it; false when they do not, and then the key is {@link #closedKeys() closed}.
	 */
	public boolean admit(@Nullable String key) {
		if (queueRoom(1, true) <= 0) {
			return false;
		}
		Limit limit = this.limits.limitOf(key);
		if (key != null && limit != null) {
			if (keyRoom(key, limit, 1) <= 0) {
				this.closed.add(key);
				return false;
			}
			this.takenByKey.merge(key, 1, Integer::sum);
			if (keyRoom(key, limit, 0) <= 0) {
				this.closed.add(key);
			}
		}
		this.taken++;
		return true;
	}

	/**
	 * Gives back the start of an admitted job that the claim could not take (another
	 * transaction held its row, or it was no longer queued): the windows to write do not count
	 * it, and its room goes to the jobs admitted after it. When the claim asks to come back
	 * ({@link #millisUntilRateRoom}) it still counts, as if it had started: the job is due and
	 * will be read first again, and the room it left would otherwise call the next claim at
	 * once, again and again while its row is held.
	 */
	public void withdraw(@Nullable String key) {
		if (this.taken == 0) {
			throw new IllegalStateException("No start to give back");
		}
		this.taken--;
		this.withdrawn++;
		Limit limit = this.limits.limitOf(key);
		if (key != null && limit != null) {
			this.takenByKey.merge(key, -1, Integer::sum);
			this.withdrawnByKey.merge(key, 1, Integer::sum);
			if (Math.min(concurrencyRoom(key, limit), rateRoom(key, limit)) > this.takenByKey.get(key)) {
				this.closed.remove(key);
			}
		}
	}

	/** Keys that can start no more jobs in this claim. */
	public Set<String> closedKeys() {
		return this.closed;
	}

	public int taken() {
		return this.taken;
	}

	/** Whether a limit on running jobs kept a job from starting, or capped the claim. */
	public boolean heldByConcurrency() {
		return this.concurrencyHeld;
	}

	/**
	 * How long until a rate limit that kept a job from starting, or capped the claim, allows
	 * another start; {@code null} when no rate limit held anything back.
	 */
	public @Nullable Long millisUntilRateRoom() {
		long wait = Long.MAX_VALUE;
		for (String key : this.rateHeld) {
			Limit limit = key.equals(QUEUE_WINDOW) ? this.limits.limit() : this.limits.limitOf(key);
			RateLimit rate = (limit != null) ? limit.rate() : null;
			if (rate != null) {
				int takenOfWindow = key.equals(QUEUE_WINDOW) ? this.taken + this.withdrawn
						: this.takenByKey.getOrDefault(key, 0) + this.withdrawnByKey.getOrDefault(key, 0);
				RateWindow window = window(key).plus(takenOfWindow, this.now, rate.periodMillis());
				wait = Math.min(wait, (window.room(rate, this.now) > 0) ? 1 : window.millisUntilRoom(rate, this.now));
			}
		}
		return (wait == Long.MAX_VALUE) ? null : wait;
	}

	/**
	 * The keys whose rate limit kept a job from starting, by how long until each allows a
	 * start again (milliseconds from now).
	 */
	public Map<String, Long> keysWithoutRateRoom() {
		Map<String, Long> waits = new HashMap<>();
		for (String key : this.rateHeld) {
			Limit limit = key.equals(QUEUE_WINDOW) ? null : this.limits.limitOf(key);
			RateLimit rate = (limit != null) ? limit.rate() : null;
			if (rate != null) {
				RateWindow window = window(key).plus(this.takenByKey.getOrDefault(key, 0), this.now,
						rate.periodMillis());
				if (window.room(rate, this.now) == 0) {
					waits.put(key, window.millisUntilRoom(rate, this.now));
				}
			}
		}
		return waits;
	}

	/**
	 * The rate windows with this claim's starts counted, to write back, by key
	 * ({@link #QUEUE_WINDOW} for the queue's own).
	 */
	public Map<String, RateWindow> windowsToWrite() {
		Map<String, RateWindow> changed = new LinkedHashMap<>();
		if (this.taken == 0) {
			return changed;
		}
		Limit queueLimit = this.limits.limit();
		if (queueLimit != null && queueLimit.rate() != null) {
			changed.put(QUEUE_WINDOW, window(QUEUE_WINDOW).plus(this.taken, this.now, queueLimit.rate().periodMillis()));
		}
		this.takenByKey.forEach((key, count) -> {
			Limit limit = this.limits.limitOf(key);
			if (count > 0 && limit != null && limit.rate() != null) {
				changed.put(key, window(key).plus(count, this.now, limit.rate().periodMillis()));
			}
		});
		return changed;
	}

	/** Whether the window of this key was read from the database (else it is new). */
	public boolean isStored(String key) {
		return this.stored.contains(key);
	}

	/**
	 * How many of the due jobs the limits hold back now, by the limit that does
	 * ({@link #QUEUE_CONCURRENCY}, {@link #QUEUE_RATE}, {@link #KEY_CONCURRENCY},
	 * {@link #KEY_RATE}); the windows of the keys must have been read. Counts nothing as taken.
	 * @param dueByKey due jobs per concurrency key
	 * @param dueWithoutKey due jobs without a key
	 */
	public Map<String, Long> heldBack(Map<String, Long> dueByKey, long dueWithoutKey) {
		Map<String, Long> held = new LinkedHashMap<>();
		long admitted = dueWithoutKey;
		for (Map.Entry<String, Long> due : dueByKey.entrySet()) {
			Limit limit = this.limits.limitOf(due.getKey());
			if (limit == null) {
				admitted += due.getValue();
				continue;
			}
			long byConcurrency = concurrencyRoom(due.getKey(), limit);
			long byRate = rateRoom(due.getKey(), limit);
			long kept = Math.max(0, due.getValue() - Math.min(byConcurrency, byRate));
			if (kept > 0) {
				held.merge((byConcurrency <= byRate) ? KEY_CONCURRENCY : KEY_RATE, kept, Long::sum);
			}
			admitted += due.getValue() - kept;
		}
		Limit queueLimit = this.limits.limit();
		if (queueLimit != null) {
			long byConcurrency = (queueLimit.concurrency() != null)
					? Math.max(0, queueLimit.concurrency() - this.running) : Long.MAX_VALUE;
			long byRate = (queueLimit.rate() != null) ? window(QUEUE_WINDOW).room(queueLimit.rate(), this.now)
					: Long.MAX_VALUE;
			long kept = Math.max(0, admitted - Math.min(byConcurrency, byRate));
			if (kept > 0) {
				held.merge((byConcurrency <= byRate) ? QUEUE_CONCURRENCY : QUEUE_RATE, kept, Long::sum);
			}
		}
		return held;
	}

	/**
	 * Room the queue's own limits leave after this claim's starts; with {@code note}, notes why
	 * when less than {@code wanted}: the limit that leaves the least room (both, when they
	 * leave the same). A rate with room to spare beside a full concurrency holds nothing back:
	 * noted, it would ask for the next claim at once, and a full queue would be polled every
	 * few milliseconds until a job ended.
	 */
	private long queueRoom(long wanted, boolean note) {
		Limit limit = this.limits.limit();
		if (limit == null) {
			return Long.MAX_VALUE;
		}
		long byConcurrency = (limit.concurrency() != null) ? limit.concurrency() - this.running - this.taken
				: Long.MAX_VALUE;
		long byRate = (limit.rate() != null) ? window(QUEUE_WINDOW).room(limit.rate(), this.now) - this.taken
				: Long.MAX_VALUE;
		long room = Math.min(byConcurrency, byRate);
		if (note && room < wanted) {
			if (byConcurrency == room) {
				this.concurrencyHeld = true;
			}
			if (byRate == room) {
				this.rateHeld.add(QUEUE_WINDOW);
			}
		}
		return room;
	}

	private long keyRoom(String key, Limit limit, long wanted) {
		int takenOfKey = this.takenByKey.getOrDefault(key, 0);
		long byConcurrency = concurrencyRoom(key, limit) - takenOfKey;
		long byRate = rateRoom(key, limit) - takenOfKey;
		if (byConcurrency < wanted) {
			this.concurrencyHeld = true;
		}
		if (byRate < wanted && limit.rate() != null) {
			this.rateHeld.add(key);
		}
		return Math.min(byConcurrency, byRate);
	}

	private long concurrencyRoom(String key, Limit limit) {
		return (limit.concurrency() != null) ? limit.concurrency() - this.runningByKey.getOrDefault(key, 0)
				: Long.MAX_VALUE;
	}

	private long rateRoom(String key, Limit limit) {
		return (limit.rate() != null) ? window(key).room(limit.rate(), this.now) : Long.MAX_VALUE;
	}

	private RateWindow window(String key) {
		return this.windows.getOrDefault(key, RateWindow.EMPTY);
	}

}
