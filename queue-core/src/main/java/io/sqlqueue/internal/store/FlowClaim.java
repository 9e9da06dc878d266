package io.sqlqueue.internal.store;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.JdbcTemplate;

import io.sqlqueue.JobRecord;
import io.sqlqueue.flow.Limit;
import io.sqlqueue.flow.QueueLimits;

/**
 * The claim of a queue with limits (README "Flow control"), on every database and claim
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
 */
final class FlowClaim {

	/** The claim's transaction is not READ COMMITTED: it must be made again, asking for it. */
	static final class NotReadCommittedException extends RuntimeException {

		NotReadCommittedException() {
			super("A limited claim needs READ COMMITTED, and the connection's transactions are not");
		}

	}

	/** Pages of candidates one claim reads at most; the next claim goes on from the start. */
	static final int MAX_PAGES = 4;

	/**
	 * Rounds of admission one claim makes at most: after the first, one more each time it
	 * passed over admitted jobs whose rows another transaction held, to give their room to the
	 * jobs after them.
	 */
	static final int MAX_ROUNDS = 3;

	/** Passed-over jobs after which a claim makes no further round (each round reads without them, by id). */
	static final int MAX_PASSED_OVER = IdChunks.MAX;

	/** Full keys a read leaves out by name at most; jobs of others are read, and refused one by one. */
	static final int MAX_EXCLUDED = 512;

	private final JdbcTemplate jdbc;

	private final JobSql sql;

	private final Dialect dialect;

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

	FlowClaim(JdbcTemplate jdbc, JobSql sql, Dialect dialect, FlowStore flow) {
		this.jdbc = jdbc;
		this.sql = sql;
		this.dialect = dialect;
		this.flow = flow;
	}

	/** Whether the queue had limits at its last claim here. */
	boolean isLimited(String queue) {
		return this.limited.containsKey(queue);
	}

	/**
	 * Looks whether the queue has limits now (after a claim without limits found nothing,
	 * which it also does when the queue got limits); true when it has.
	 */
	boolean checkLimited(String queue) {
		if (!this.flow.hasLimits(queue)) {
			return false;
		}
		this.limited.putIfAbsent(queue, QueueLimits.none(queue));
		return true;
	}

	/**
	 * Claims for the request under the queue's limits, in the current transaction;
	 * {@code null} when the queue has no limits (any more).
	 */
	@Nullable ClaimResult claim(ClaimRequest request, long token) {
		String queue = request.queue();
		FlowStore.FlowLock lock = this.flow.lock(queue);
		if (lock == null) {
			this.limited.remove(queue);
			this.rateClosed.remove(queue);
			return null;
		}
		if (!lock.readCommitted()) {
			throw new NotReadCommittedException();
		}
		QueueLimits limits = this.limited.get(queue);
		if (limits == null || limits.version() != lock.version() || limits.isEmpty()) {
			limits = this.flow.limits(queue);
			this.limited.put(queue, limits);
			this.rateClosed.remove(queue);
		}
		Instant now = lock.now();
		long nowMillis = now.toEpochMilli();
		Map<String, Long> closedUntil = this.rateClosed.computeIfAbsent(queue, (q) -> new ConcurrentHashMap<>());
		closedUntil.values().removeIf((until) -> until <= nowMillis);
		// Where a key may be full, its running jobs are counted before any job is read, so that
		// full keys are left out of the read; otherwise the queue's running jobs are counted by
		// the first read of candidates (and by key only if that count says a key may fill up).
		boolean countByKeyFirst = limits.limitsKeyConcurrency() && mayFillAKey(queue, limits, request.limit());
		FlowStore.Running running = countByKeyFirst ? this.flow.running(queue) : new FlowStore.Running(0, Map.of());
		Admission admission = new Admission(limits, nowMillis, running.total(), running.byKey(), lock.window());
		List<JobRecord> claimed = new ArrayList<>();
		Set<Long> passedOver = new LinkedHashSet<>();
		Set<String> windowsRead = new HashSet<>();
		for (int round = 0; round < MAX_ROUNDS && passedOver.size() <= MAX_PASSED_OVER; round++) {
			List<JobRecord> admitted = admit(request, request.limit() - claimed.size(), limits, admission,
					countByKeyFirst || round > 0, closedUntil.keySet(), passedOver, windowsRead);
			List<JobRecord> taken = admitted.isEmpty() ? admitted : claimAdmitted(request, token, now, admitted);
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
		claimed.sort(JobClaims::runOrder);
		if (!claimed.isEmpty()) {
			this.flow.writeWindows(queue, admission);
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
	private void pruneWindows(String queue, QueueLimits limits, Instant now) {
		if (!limits.limitsKeyRates()) {
			return;
		}
		long at = System.nanoTime();
		Long last = this.prunedAt.get(queue);
		if (last == null || at - last > PRUNE_INTERVAL.toNanos()) {
			this.prunedAt.put(queue, at);
			this.flow.deleteExpiredWindows(queue, now);
		}
	}

	/**
	 * Reads candidates page by page, leaving out those passed over, and admits those the
	 * limits allow, up to the queue's room and {@code wanted}; the running jobs are counted
	 * already ({@code counted}) or with the first page.
	 */
	private List<JobRecord> admit(ClaimRequest request, int wanted, QueueLimits limits, Admission admission,
			boolean counted, Set<String> rateClosed, Set<Long> passedOver, Set<String> windowsRead) {
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
		// At most MAX_PASSED_OVER ids: one chunk, padded.
		List<Object> notAgain = passedOver.isEmpty() ? List.of() : List.of(IdChunks.of(passedOver).get(0));
		boolean moreDue = false;
		for (int pages = 0; pages < MAX_PAGES && admitted.size() < room; pages++) {
			if (pages > 0) {
				page = 2 * (room - admitted.size());
			}
			int[] running = { -1 };
			List<JobRecord> candidates = candidates(request, excluded(admission, rateClosed), notAgain, last, page,
					(pages == 0 && countRunning) ? running : null);
			if (running[0] >= 0) {
				this.runningAtLastClaim.put(request.queue(), running[0]);
				if (limits.limitsKeyConcurrency()
						&& (long) running[0] + wanted >= limits.smallestKeyConcurrency()) {
					// Some key may be full after all: count by key before admitting anything.
					FlowStore.Running byKey = this.flow.running(request.queue());
					admission.running(byKey.total(), byKey.byKey());
				}
				else {
					admission.running(running[0]);
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
	private void readWindows(String queue, QueueLimits limits, List<JobRecord> candidates, Set<String> read,
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
			admission.windowsRead(this.flow.windows(queue, keys));
		}
	}

	/**
	 * Reads due jobs; with {@code running} not null, counts the queue's running jobs in the same
	 * statement into its first element (left as it is when nothing was read).
	 */
	private List<JobRecord> candidates(ClaimRequest request, List<String> excluded, List<Object> passedOver,
			@Nullable JobRecord after, int limit, int @Nullable [] running) {
		List<Object> args = new ArrayList<>();
		if (running != null) {
			args.add(request.queue());
		}
		args.add(request.queue());
		args.addAll(request.handlers());
		args.addAll(excluded);
		args.addAll(passedOver);
		String statement = this.sql.limitedCandidates(new JobSql.CandidateRead(request.handlers().size(),
				excluded.size(), passedOver.size(), after != null, running != null));
		JobRows rows = new JobRows(this.dialect, false);
		return this.jdbc.query(statement, (ps) -> {
			int index = 1;
			for (Object arg : args) {
				ps.setObject(index++, arg);
			}
			if (after != null) {
				ps.setInt(index++, after.priority());
				ps.setInt(index++, after.priority());
				this.dialect.setTimestamp(ps, index++, after.runAt());
				this.dialect.setTimestamp(ps, index++, after.runAt());
				ps.setLong(index++, after.id());
			}
			ps.setInt(index, limit);
		}, (rs, row) -> {
			if (running != null && row == 0) {
				running[0] = rs.getInt("queue_running");
			}
			return rows.mapRow(rs, row);
		});
	}

	/**
	 * The keys to leave out of a read, by name, full or without rate room: up to
	 * {@link #MAX_EXCLUDED}, padded to a power of two (by repeating one) so that few statement
	 * texts serve every count.
	 */
	private static List<String> excluded(Admission admission, Set<String> rateClosed) {
		Set<String> full = admission.fullKeys();
		full.addAll(rateClosed);
		List<String> keys = new ArrayList<>(full);
		if (keys.isEmpty()) {
			return keys;
		}
		keys.sort(null);
		List<String> excluded = new ArrayList<>(keys.subList(0, Math.min(keys.size(), MAX_EXCLUDED)));
		int padded = IdChunks.padded(excluded.size());
		while (excluded.size() < padded) {
			excluded.add(excluded.get(0));
		}
		return excluded;
	}

	/**
	 * Claims the admitted jobs that are still queued (an operator may have cancelled one
	 * since it was read) and whose rows no other transaction holds (a caller's transaction
	 * that enqueued a job to run after one holds its row until it commits): it passes over
	 * those instead of waiting for them, so that neither this queue's other jobs nor the
	 * instance's poll loop wait for a caller. The jobs start at the lock's clock reading, as
	 * their rate windows counted them.
	 */
	private List<JobRecord> claimAdmitted(ClaimRequest request, long token, Instant now, List<JobRecord> admitted) {
		Set<Long> taken = new HashSet<>();
		for (Object[] ids : IdChunks.of(admitted.stream().map(JobRecord::id).toList())) {
			taken.addAll(claimQueued(request, token, now, ids));
		}
		return admitted.stream()
			.filter((job) -> taken.contains(job.id()))
			.map((job) -> JobClaims.claimed(job, request.owner(), token, now))
			.toList();
	}

	/** Claims those of these jobs (ids padded by {@link IdChunks}) that it can; returns their ids. */
	private List<Long> claimQueued(ClaimRequest request, long token, Instant now, Object[] ids) {
		String inOne = this.sql.claimQueuedPassingOverLocked(ids.length);
		if (inOne != null) {
			return this.jdbc.query(inOne, (ps) -> {
				for (int i = 0; i < ids.length; i++) {
					ps.setObject(1 + i, ids[i]);
				}
				setClaimed(ps, ids.length + 1, request, token, now);
			}, (rs, row) -> rs.getLong(1));
		}
		if (this.dialect.supports(ClaimMethod.LOCK_THEN_UPDATE)) {
			List<Long> locked = this.jdbc.queryForList(this.sql.lockQueued(ids.length), Long.class, ids);
			if (!locked.isEmpty()) {
				update(request, token, now, IdChunks.of(locked).get(0));
			}
			return locked;
		}
		// SQLite: no row locks, and no other writer while this transaction writes.
		int updated = update(request, token, now, ids);
		List<Long> distinct = new ArrayList<>(new LinkedHashSet<>(Arrays.stream(ids).map(Long.class::cast).toList()));
		if (updated == distinct.size()) {
			return distinct;
		}
		// An operator cancelled one since it was read: find which are this claim's.
		Object[] args = new Object[ids.length + 1];
		args[0] = token;
		System.arraycopy(ids, 0, args, 1, ids.length);
		return this.jdbc.queryForList(this.sql.claimedWith(ids.length), Long.class, args);
	}

	/** Claims these queued jobs, whose rows no other transaction holds; returns how many it updated. */
	private int update(ClaimRequest request, long token, Instant now, Object[] ids) {
		return this.jdbc.update(this.sql.claimQueued(ids.length), (ps) -> {
			setClaimed(ps, 1, request, token, now);
			for (int i = 0; i < ids.length; i++) {
				ps.setObject(5 + i, ids[i]);
			}
		});
	}

	/** Binds what a claim writes (owner, token, lease millis, start) from {@code index} on. */
	private void setClaimed(PreparedStatement ps, int index, ClaimRequest request, long token, Instant now)
			throws SQLException {
		ps.setString(index, request.owner());
		ps.setLong(index + 1, token);
		ps.setLong(index + 2, request.leaseMillis());
		this.dialect.setTimestamp(ps, index + 3, now);
	}

}
