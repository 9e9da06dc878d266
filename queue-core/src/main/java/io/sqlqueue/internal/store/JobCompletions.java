package io.sqlqueue.internal.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.dao.PessimisticLockingFailureException;
import org.springframework.jdbc.core.JdbcTemplate;

import io.sqlqueue.JobStatus;

/**
 * The writes of attempts' successes, each fenced by its lease: a completion flush (many jobs
 * in one round trip and one commit) and a transactional handler's completion with its work.
 * the store calls it; the transactions are {@link StoreTransactions}'.
 */
final class JobCompletions {

	private static final Logger logger = LoggerFactory.getLogger(JobCompletions.class);

	/** How often {@link #complete} tries again a success whose row another transaction holds. */
	private static final Duration HELD_RETRY = Duration.ofMillis(100);

	private final JdbcTemplate jdbc;

	private final JobEndSql sql;

	private final StoreTransactions transactions;

	private final WorkflowStore workflows;

	private final JobLeases leases;

	private final JobEnds ends;

	private final AttemptHistory attempts;

	JobCompletions(StoreContext context, JobEndSql sql, WorkflowStore workflows, JobLeases leases, JobEnds ends,
			AttemptHistory attempts) {
		this.attempts = attempts;
		this.jdbc = context.jdbc();
		this.sql = sql;
		this.transactions = context.transactions();
		this.workflows = workflows;
		this.leases = leases;
		this.ends = ends;
	}

	/**
	 * Marks the jobs {@code SUCCEEDED} as {@link #completeUnlessHeld} does, and writes those
	 * it passes over again every {@link #HELD_RETRY} until it can: for tools that run jobs
	 * on the calling thread ({@code JobRunner}), which wait for their write as the statement
	 * once waited for the row. Returns, per completion, whether its lease still held (false
	 * for those still held when the thread is interrupted).
	 */
	boolean[] complete(List<Completion> completions) {
		Set<Lease> recorded = new HashSet<>();
		List<Completion> left = completions;
		while (!left.isEmpty()) {
			CompletedJobs done = completeUnlessHeld(left);
			recorded.addAll(done.recorded());
			left = left.stream().filter((completion) -> done.passedOver().contains(completion.lease())).toList();
			if (!left.isEmpty()) {
				try {
					Thread.sleep(HELD_RETRY.toMillis());
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					break;
				}
			}
		}
		boolean[] held = new boolean[completions.size()];
		for (int i = 0; i < held.length; i++) {
			held[i] = recorded.contains(completions.get(i).lease());
		}
		return held;
	}

	/** See {@link QueueStore#completeUnlessHeld}. */
	CompletedJobs completeUnlessHeld(List<Completion> completions) {
		Set<Lease> recorded = completePlain(completions);
		List<Completion> missed = completions.stream()
			.filter((completion) -> !recorded.contains(completion.lease()))
			.toList();
		if (missed.isEmpty()) {
			return new CompletedJobs(recorded, Set.of());
		}
		// Jobs whose end settles others (dependents, a batch) are left alone by the plain
		// statement: they are completed here, each with what it settles, in one transaction.
		Set<Lease> settling = this.workflows.runningToSettle(missed.stream().map(Completion::lease).toList());
		List<Completion> slow = missed.stream().filter((completion) -> settling.contains(completion.lease())).toList();
		if (!slow.isEmpty()) {
			recorded.addAll(completeSettling(slow));
		}
		if (!this.transactions.rowLocks()) {
			return new CompletedJobs(recorded, Set.of());
		}
		// A fenced write misses a job still running under its lease only when it passed over
		// its row (or what its end settles): those are written later. The others lost their lease.
		Set<Lease> passedOver = this.leases.running(missed.stream()
			.map(Completion::lease)
			.filter((lease) -> !recorded.contains(lease))
			.toList());
		return new CompletedJobs(recorded, passedOver);
	}

	/**
	 * The completions of jobs whose end settles nothing else, one statement each or one for
	 * all; where the database has {@code SKIP LOCKED}, of the rows no other transaction holds:
	 * locked first, in id order, passing over the others, then written (MariaDB, which cannot
	 * lock in an {@code UPDATE}'s subquery nor return the rows it changed, in one statement per
	 * chunk, {@link Dialect#completeLocked}).
	 */
	private Set<Lease> completePlain(List<Completion> completions) {
		String completeAll = this.attempts.isEnabled() ? this.sql.completeAllRecording : this.sql.completeAll;
		if (completeAll != null) {
			// One statement commits on its own, in one round trip, unless this thread is in a
			// transaction, which the queue's own writes never join. It records the attempts too.
			Set<Long> ids = StoreTransactions.anyActive()
					? this.transactions.inNewTransaction(() -> completeInOneStatement(completions, completeAll))
					: completeInOneStatement(completions, completeAll);
			return leasesOf(completions, ids);
		}
		return this.transactions.inNewForFlush(() -> {
			Set<Lease> recorded;
			if (this.transactions.rowLocks()) {
				List<Completion> unheld = locked(completions, this.leases::lockPlain);
				recorded = (this.sql.completeLocked(1) != null) ? completeLocked(unheld) : completeEach(unheld);
			}
			else {
				recorded = completeEach(completions);
			}
			// In the flush's transaction, one more round trip per batch, never one per job.
			this.attempts.recordEnded(recorded.stream().map(Lease::jobId).toList());
			this.ends.notifyFinished(recorded.stream().map(Lease::jobId).toList());
			return recorded;
		});
	}

	/** One fenced statement per job, in one round trip; the update counts say which it recorded. */
	private Set<Lease> completeEach(List<Completion> completions) {
		boolean[] held = Batches.held(Batches.batch(this.jdbc, this.sql.plain(this.sql.complete), completions,
				JobCompletions::bindCompletion));
		Set<Lease> recorded = new HashSet<>();
		for (int i = 0; i < held.length; i++) {
			if (held[i]) {
				recorded.add(completions.get(i).lease());
			}
		}
		return recorded;
	}

	/**
	 * One statement per chunk ({@link RowChunks}) for jobs whose rows this transaction has
	 * locked, found running under their tokens, and whose ends settle nothing else: nothing else
	 * can change those rows before it ends, so the statement completes every one of them, in id
	 * order, the order they were locked in. Its update count checks that it did.
	 */
	private Set<Lease> completeLocked(List<Completion> locked) {
		List<Completion> byId = locked.stream()
			.sorted(Comparator.comparingLong((completion) -> completion.lease().jobId()))
			.toList();
		int completed = 0;
		for (List<Completion> chunk : RowChunks.of(byId,
				(completion) -> RowChunks.length(completion.result()) + RowChunks.length(completion.note()))) {
			String statement = Objects.requireNonNull(this.sql.completeLocked(chunk.size()));
			int rows = IdChunks.padded(chunk.size());
			completed += this.jdbc.update(statement, (ps) -> {
				for (int i = 0; i < rows; i++) {
					int before = 4 * i;
					if (i < chunk.size()) {
						Completion completion = chunk.get(i);
						ps.setLong(before + 1, completion.lease().jobId());
						ps.setLong(before + 2, completion.lease().token());
						ps.setString(before + 3, completion.result());
						ps.setString(before + 4, completion.note());
					}
					else {
						ps.setNull(before + 1, Types.BIGINT);
						ps.setNull(before + 2, Types.BIGINT);
						ps.setNull(before + 3, Types.VARCHAR);
						ps.setNull(before + 4, Types.VARCHAR);
					}
				}
			});
		}
		if (completed != locked.size()) {
			throw new IllegalStateException("A completion flush changed " + completed + " rows of the "
					+ locked.size() + " running jobs it had locked");
		}
		Set<Lease> recorded = new HashSet<>();
		locked.forEach((completion) -> recorded.add(completion.lease()));
		return recorded;
	}

	/**
	 * Of these completions, those whose row this transaction could lock, where the database
	 * has {@code SKIP LOCKED} (locked now, passing over rows another transaction holds, until
	 * the transaction ends, so nothing changes them in between); elsewhere all of them.
	 */
	private List<Completion> unheld(List<Completion> completions) {
		return this.transactions.rowLocks() ? locked(completions, this.leases::lock) : completions;
	}

	/** Of these completions, those whose row {@code lock} locked in this transaction. */
	private static List<Completion> locked(List<Completion> completions, Function<List<Lease>, Set<Lease>> lock) {
		Set<Lease> locked = lock.apply(completions.stream().map(Completion::lease).toList());
		return completions.stream().filter((completion) -> locked.contains(completion.lease())).toList();
	}

	/**
	 * Completes jobs whose end settles others, and settles it, in a transaction of its own;
	 * returns the leases it recorded. Where the database has {@code SKIP LOCKED} it passes over
	 * the jobs' rows another transaction holds, and waits at most {@link StoreTransactions#OWN_LOCK_WAIT}
	 * for any other row (a batch's, a dependent's): past that, the whole transaction is rolled
	 * back and each job is tried alone, so that one held row leaves only its own job for later.
	 */
	private Set<Lease> completeSettling(List<Completion> completions) {
		if (!this.transactions.rowLocks()) {
			return this.transactions.inNewForSettling(() -> settleCompleted(completions));
		}
		try {
			return this.transactions.inNewForSettling(() -> this.transactions.withBoundedLockWaits(this.jdbc,
					StoreTransactions.OWN_LOCK_WAIT, () -> settleCompleted(unheld(completions))));
		}
		catch (PessimisticLockingFailureException ex) {
			if (completions.size() > 1) {
				Set<Lease> recorded = new HashSet<>();
				completions.forEach((completion) -> recorded.addAll(completeSettling(List.of(completion))));
				return recorded;
			}
			logger.debug("The success of job {} is left for a later flush: settling its end needs a row that another "
					+ "transaction has held for longer than {} ({})", completions.get(0).lease().jobId(),
					StoreTransactions.OWN_LOCK_WAIT, ex.getMessage());
			return Set.of();
		}
	}

	private Set<Lease> settleCompleted(List<Completion> completions) {
		boolean[] held = Batches
			.held(Batches.batch(this.jdbc, this.sql.complete, completions, JobCompletions::bindCompletion));
		List<WorkflowStore.Ended> ended = new ArrayList<>();
		Set<Lease> recorded = new HashSet<>();
		for (int i = 0; i < held.length; i++) {
			if (held[i]) {
				Lease lease = completions.get(i).lease();
				recorded.add(lease);
				ended.add(new WorkflowStore.Ended(lease.jobId(), JobStatus.SUCCEEDED));
			}
		}
		this.attempts.recordEnded(recorded.stream().map(Lease::jobId).toList());
		this.ends.notifyFinished(recorded.stream().map(Lease::jobId).toList());
		this.ends.settle(ended);
		return recorded;
	}

	private static Set<Lease> leasesOf(List<Completion> completions, Set<Long> ids) {
		Set<Lease> leases = new HashSet<>();
		completions.stream()
			.map(Completion::lease)
			.filter((lease) -> ids.contains(lease.jobId()))
			.forEach(leases::add);
		return leases;
	}

	private static void bindCompletion(PreparedStatement ps, Completion completion) throws SQLException {
		ps.setString(1, completion.result());
		ps.setString(2, completion.note());
		ps.setLong(3, completion.lease().jobId());
		ps.setLong(4, completion.lease().token());
	}

	/** See {@link QueueStore#completeWhileLeased}. */
	boolean completeWhileLeased(Completion completion) {
		boolean held = this.ends.endAttempt(this.sql.completeWhileLeased, completion.lease().jobId(), completion.result(),
				completion.note(), completion.lease().jobId(), completion.lease().token());
		if (held) {
			this.ends.notifyFinished(List.of(completion.lease().jobId()));
		}
		return held;
	}

	private Set<Long> completeInOneStatement(List<Completion> completions, String statement) {
		Long[] ids = new Long[completions.size()];
		Long[] tokens = new Long[completions.size()];
		String[] results = new String[completions.size()];
		String[] notes = new String[completions.size()];
		for (int i = 0; i < ids.length; i++) {
			ids[i] = completions.get(i).lease().jobId();
			tokens[i] = completions.get(i).lease().token();
			results[i] = completions.get(i).result();
			notes[i] = completions.get(i).note();
		}
		List<Long> awaited = new ArrayList<>();
		Set<Long> held = new HashSet<>(this.jdbc.execute((Connection connection) -> {
			try (PreparedStatement ps = connection.prepareStatement(statement)) {
				ps.setArray(1, connection.createArrayOf("bigint", ids));
				ps.setArray(2, connection.createArrayOf("bigint", tokens));
				ps.setArray(3, connection.createArrayOf("text", results));
				ps.setArray(4, connection.createArrayOf("text", notes));
				List<Long> updated = new ArrayList<>();
				try (ResultSet rs = ps.executeQuery()) {
					while (rs.next()) {
						updated.add(rs.getLong(1));
						if (rs.getInt(2) != 0) {
							awaited.add(rs.getLong(1));
						}
					}
				}
				return updated;
			}
		}));
		// The statement read each job's awaited column already.
		this.ends.announceFinished(awaited);
		return held;
	}

}
