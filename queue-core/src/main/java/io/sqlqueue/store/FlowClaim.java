package io.sqlqueue.store;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.JdbcTemplate;

import io.sqlqueue.JobRecord;
import io.sqlqueue.flow.Admission;
import io.sqlqueue.flow.QueueLimits;
import io.sqlqueue.flow.RateWindow;

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
 * <li>claim the admitted jobs by id, and count their starts in the rate windows.
 * </ol>
 * Only the admitted rows are written (and so locked): a claim never locks a job it does not
 * take. Claims of queues without limits never take the lock and do not change.
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
			return null;
		}
		if (!lock.readCommitted()) {
			throw new NotReadCommittedException();
		}
		QueueLimits limits = this.limited.get(queue);
		if (limits == null || limits.version() != lock.version() || limits.isEmpty()) {
			limits = this.flow.limits(queue);
			this.limited.put(queue, limits);
		}
		Instant now = lock.now();
		// Where a key may be full, its running jobs are counted before any job is read, so that
		// full keys are left out of the read; otherwise the queue's running jobs are counted by
		// the first read of candidates (and by key only if that count says a key may fill up).
		boolean countByKeyFirst = limits.limitsKeyConcurrency() && mayFillAKey(queue, limits, request.limit());
		FlowStore.Running running = countByKeyFirst ? this.flow.running(queue) : new FlowStore.Running(0, Map.of());
		Admission admission = new Admission(limits, now.toEpochMilli(), running.total(), running.byKey(),
				lock.window());
		List<JobRecord> admitted = admit(request, limits, admission, countByKeyFirst);
		List<JobRecord> claimed = admitted.isEmpty() ? admitted : claimAdmitted(request, token, now, admitted);
		if (!claimed.isEmpty()) {
			this.flow.writeWindows(queue, admission);
			pruneWindows(queue, limits, now);
		}
		Long wait = admission.millisUntilRateRoom();
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
	 * Reads candidates page by page and admits those the limits allow, up to the queue's room;
	 * the running jobs are counted already ({@code counted}) or with the first page.
	 */
	private List<JobRecord> admit(ClaimRequest request, QueueLimits limits, Admission admission, boolean counted) {
		boolean countRunning = limits.limitsConcurrency() && !counted;
		int room = admission.room(request.limit());
		List<JobRecord> admitted = new ArrayList<>();
		if (room == 0) {
			// Read nothing; whether jobs are due is not known, so the limits count as holding them
			// back: the next claim comes when they have room (a rate), or a job ends (running jobs).
			admission.capped(request.limit());
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
			int[] running = { -1 };
			Map<String, RateWindow> windows = limits.limitsKeyRates() ? new HashMap<>() : null;
			List<JobRecord> candidates = candidates(request, excluded(admission), last, page,
					(pages == 0 && countRunning) ? running : null, windows);
			if (running[0] >= 0) {
				this.runningAtLastClaim.put(request.queue(), running[0]);
				if (limits.limitsKeyConcurrency()
						&& (long) running[0] + request.limit() >= limits.smallestKeyConcurrency()) {
					// Some key may be full after all: count by key before admitting anything.
					FlowStore.Running byKey = this.flow.running(request.queue());
					admission.running(byKey.total(), byKey.byKey());
				}
				else {
					admission.running(running[0]);
				}
				room = admission.room(request.limit());
			}
			else if (counted && pages == 0) {
				this.runningAtLastClaim.put(request.queue(), admission.running());
			}
			if (windows != null) {
				admission.windowsRead(windows);
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
		if (moreDue && admitted.size() >= room && room < request.limit()) {
			admission.capped(request.limit());
		}
		return admitted;
	}

	/**
	 * Reads due jobs; with {@code running} not null, counts the queue's running jobs in the same
	 * statement into its first element (left as it is when nothing was read), and with
	 * {@code windows} not null, reads the rate windows of their keys into it.
	 */
	private List<JobRecord> candidates(ClaimRequest request, List<String> excluded, @Nullable JobRecord after,
			int limit, int @Nullable [] running, @Nullable Map<String, RateWindow> windows) {
		List<Object> args = new ArrayList<>();
		if (running != null) {
			args.add(request.queue());
		}
		args.add(request.queue());
		args.addAll(request.handlers());
		args.addAll(excluded);
		String statement = this.sql.limitedCandidates(new JobSql.CandidateRead(request.handlers().size(),
				excluded.size(), after != null, running != null, windows != null));
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
			JobRecord job = rows.mapRow(rs, row);
			long start = (windows != null) ? rs.getLong("key_window_start") : 0;
			if (windows != null && !rs.wasNull() && job.concurrencyKey() != null) {
				windows.put(job.concurrencyKey(), new RateWindow(start, rs.getInt("key_window_starts"),
						rs.getInt("key_previous_starts")));
			}
			return job;
		});
	}

	/**
	 * The full keys to leave out of a read, by name: up to {@link #MAX_EXCLUDED}, padded to a
	 * power of two (by repeating one) so that few statement texts serve every count.
	 */
	private static List<String> excluded(Admission admission) {
		List<String> keys = new ArrayList<>(admission.fullKeys());
		if (keys.isEmpty()) {
			return keys;
		}
		keys.sort(null);
		List<String> excluded = new ArrayList<>(keys.subList(0, Math.min(keys.size(), MAX_EXCLUDED)));
		int padded = Integer.highestOneBit(excluded.size() - 1) << 1;
		while (excluded.size() < Math.max(1, padded)) {
			excluded.add(excluded.get(0));
		}
		return excluded;
	}

	/**
	 * Claims the admitted jobs that are still queued (an operator may have cancelled one
	 * since it was read), starting them at the lock's clock reading, as their rate windows
	 * counted them.
	 */
	private List<JobRecord> claimAdmitted(ClaimRequest request, long token, Instant now, List<JobRecord> admitted) {
		// Padded to a power of two (repeating the last id) so that a few statements, prepared
		// once, serve claims of every size.
		List<Long> ids = new ArrayList<>(admitted.stream().map(JobRecord::id).toList());
		while (Integer.bitCount(ids.size()) != 1) {
			ids.add(ids.get(ids.size() - 1));
		}
		int updated = this.jdbc.update(this.sql.claimQueued(ids.size()), (ps) -> {
			ps.setString(1, request.owner());
			ps.setLong(2, token);
			ps.setLong(3, request.leaseMillis());
			this.dialect.setTimestamp(ps, 4, now);
			for (int i = 0; i < ids.size(); i++) {
				ps.setLong(5 + i, ids.get(i));
			}
		});
		List<JobRecord> taken = admitted;
		if (updated != admitted.size()) {
			// An operator cancelled one since it was read: find which are this claim's.
			List<Object> args = new ArrayList<>();
			args.add(token);
			args.addAll(ids);
			Set<Long> ours = new HashSet<>(
					this.jdbc.queryForList(this.sql.claimedWith(ids.size()), Long.class, args.toArray()));
			taken = admitted.stream().filter((job) -> ours.contains(job.id())).toList();
		}
		return taken.stream().map((job) -> JobClaims.claimed(job, request.owner(), token, now)).toList();
	}

}
