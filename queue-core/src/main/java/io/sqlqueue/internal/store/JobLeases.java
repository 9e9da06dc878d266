package io.sqlqueue.internal.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.IntFunction;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The heartbeat's writes: extends the leases of running jobs, each fenced by its token, in
 * one statement where the database can, and never waits for a row that another transaction
 * holds, where the database has {@code SKIP LOCKED}: a transaction left open by its caller
 * (one that enqueued a job to run after a running one locks that job's row until it
 * commits) must not hold up the leases of every other job of the instance until they
 * expire and the reaper hands them to someone else. SQLite has one writer at a time: a
 * transaction that has written holds every writer, this one included, until it ends.
 * Each of its verbs runs in a transaction of its own, never the caller's; {@link #lock} and
 * {@link #lockPlain} run in the completion's.
 */
final class JobLeases {

	private final JdbcTemplate jdbc;

	private final LeaseSql sql;

	private final Dialect dialect;

	private final StoreTransactions transactions;

	JobLeases(StoreContext context, LeaseSql sql) {
		this.jdbc = context.jdbc();
		this.sql = sql;
		this.dialect = context.dialect();
		this.transactions = context.transactions();
	}

	/**
	 * Moves the leases' expiry to now plus {@code duration}, in a transaction of its own;
	 * says which it extended, which it passed over (their row was locked by another
	 * transaction: their expiry is written beside the row instead, so they hold as if
	 * extended) and which were lost. Never waits for a row lock, and holds one connection at
	 * a time, however many rows others hold.
	 */
	ExtendedLeases extendAll(Collection<Lease> leases, Duration duration) {
		if (leases.isEmpty()) {
			return ExtendedLeases.NONE;
		}
		// In job id order, as completions are written, so the two never lock rows in opposite orders.
		List<Lease> ordered = leases.stream().sorted(Comparator.comparingLong(Lease::jobId)).toList();
		Set<Lease> extended = this.transactions.inNewForLeases(this.sql.extendLeases == null,
				() -> extend(ordered, duration));
		List<Lease> missed = ordered.stream().filter((lease) -> !extended.contains(lease)).toList();
		Set<Lease> passedOver = missed.isEmpty() ? Set.of() : running(missed);
		if (!passedOver.isEmpty()) {
			List<Lease> beside = ordered.stream().filter(passedOver::contains).toList();
			this.transactions.inNewTransaction(() -> {
				extendBeside(beside, duration);
				return null;
			});
		}
		return new ExtendedLeases(extended, passedOver,
				missed.stream().filter((lease) -> !passedOver.contains(lease)).toList());
	}

	/**
	 * Notes that this instance stopped while the handlers of these leases still ran (they did
	 * not end when interrupted): when their leases expire, the reaper re-queues their jobs
	 * without counting a crash. In a transaction of its own: a note each, replacing an
	 * extension an earlier beat wrote.
	 */
	void leaveAtStop(Collection<Lease> leases) {
		if (!leases.isEmpty()) {
			List<Lease> left = List.copyOf(leases);
			this.transactions.inNewTransaction(() -> {
				dropExtensions(left);
				return this.jdbc.batchUpdate(this.sql.leaveAtStop, left, left.size(), JobLeases::bindLease);
			});
		}
	}

	/**
	 * After a pass of the reaper, deletes the extensions whose expiry has passed, in a
	 * transaction of its own; only where rows can be passed over are leases extended beside them.
	 */
	void dropEndedExtensions() {
		if (this.transactions.rowLocks()) {
			this.transactions.inNewTransaction(() -> this.jdbc.update(this.sql.dropEndedLeaseExtensions));
		}
	}

	/**
	 * Extends the leases whose job runs under them and whose row no other transaction holds
	 * (where the database can tell); returns those it extended.
	 */
	private Set<Lease> extend(List<Lease> leases, Duration duration) {
		if (this.sql.extendLeases != null) {
			return inOneStatement(leases, duration);
		}
		if (this.dialect.supports(ClaimMethod.LOCK_THEN_UPDATE)) {
			return lockThenExtend(leases, duration);
		}
		return extendEach(leases, duration);
	}

	/**
	 * Writes the leases' new expiry beside their rows, which another transaction holds: a row
	 * of {@code queue_lease_extension} each, which nobody else locks, replacing the one an
	 * earlier beat wrote. The reaper reads a lease as ended only when both have passed
	 * ({@link LeaseSql#expiredLeases}), so a job whose row a caller held past its lease is not
	 * taken from this instance when the caller lets go; the next beat extends the row itself.
	 */
	private void extendBeside(List<Lease> leases, Duration duration) {
		if (leases.isEmpty()) {
			return;
		}
		dropExtensions(leases);
		this.jdbc.batchUpdate(this.sql.extendLeaseBeside, leases, leases.size(), (ps, lease) -> {
			ps.setLong(1, lease.jobId());
			ps.setLong(2, lease.token());
			ps.setLong(3, duration.toMillis());
		});
	}

	/** Deletes the rows these leases have in {@code queue_lease_extension}, before one is written anew. */
	private void dropExtensions(List<Lease> leases) {
		this.jdbc.batchUpdate(this.sql.dropLeaseExtension, leases, leases.size(), JobLeases::bindLease);
	}

	private static void bindLease(java.sql.PreparedStatement ps, Lease lease) throws java.sql.SQLException {
		ps.setLong(1, lease.jobId());
		ps.setLong(2, lease.token());
	}

	/** Of these leases, those whose job still runs under them, as last committed (no lock taken). */
	Set<Lease> running(List<Lease> leases) {
		Set<Lease> running = new HashSet<>();
		for (Object[] chunk : IdChunks.of(leases.stream().map(Lease::jobId).toList())) {
			this.jdbc.query(this.sql.running(chunk.length), (rs) -> {
				running.add(new Lease(rs.getLong("id"), rs.getLong("lease_token")));
			}, chunk);
		}
		running.retainAll(leases);
		return running;
	}

	private Set<Lease> inOneStatement(List<Lease> leases, Duration duration) {
		Long[] ids = leases.stream().map(Lease::jobId).toArray(Long[]::new);
		Long[] tokens = leases.stream().map(Lease::token).toArray(Long[]::new);
		Set<Long> extended = new HashSet<>(this.jdbc.execute((Connection connection) -> {
			try (PreparedStatement ps = connection.prepareStatement(this.sql.extendLeases)) {
				ps.setArray(1, connection.createArrayOf("bigint", ids));
				ps.setArray(2, connection.createArrayOf("bigint", tokens));
				ps.setLong(3, duration.toMillis());
				List<Long> updated = new ArrayList<>();
				try (ResultSet rs = ps.executeQuery()) {
					while (rs.next()) {
						updated.add(rs.getLong(1));
					}
				}
				return updated;
			}
		}));
		Set<Lease> held = new HashSet<>();
		leases.stream().filter((lease) -> extended.contains(lease.jobId())).forEach(held::add);
		return held;
	}

	/**
	 * Locks the rows first, passing over those another transaction holds, then extends the
	 * leases whose token they still carry, each by its fenced statement, in one round trip.
	 * The rows stay locked until the transaction ends, so nothing changes them in between.
	 */
	private Set<Lease> lockThenExtend(List<Lease> leases, Duration duration) {
		return extendEach(leases.stream().filter(lock(leases)::contains).toList(), duration);
	}

	/**
	 * Of these leases, those whose job still runs under them and whose row this transaction
	 * could lock, passing over rows another transaction holds; the rows stay locked until the
	 * transaction ends. Only where the database has {@code SKIP LOCKED}.
	 */
	Set<Lease> lock(List<Lease> leases) {
		return lock(leases, this.sql::lockRunning);
	}

	/** As {@link #lock}, of the jobs whose end settles nothing else ({@link LeaseSql#lockPlainRunning}). */
	Set<Lease> lockPlain(List<Lease> leases) {
		return lock(leases, this.sql::lockPlainRunning);
	}

	private Set<Lease> lock(List<Lease> leases, IntFunction<String> statement) {
		Set<Lease> locked = new HashSet<>();
		for (Object[] chunk : IdChunks.of(leases.stream().map(Lease::jobId).toList())) {
			this.jdbc.query(statement.apply(chunk.length), (rs) -> {
				locked.add(new Lease(rs.getLong("id"), rs.getLong("lease_token")));
			}, chunk);
		}
		locked.retainAll(leases);
		return locked;
	}

	private Set<Lease> extendEach(List<Lease> leases, Duration duration) {
		if (leases.isEmpty()) {
			return Set.of();
		}
		int[] counts = this.jdbc.batchUpdate(this.sql.extendLease, leases, leases.size(), (ps, lease) -> {
			ps.setLong(1, duration.toMillis());
			ps.setLong(2, lease.jobId());
			ps.setLong(3, lease.token());
		})[0];
		boolean[] held = Batches.held(counts);
		Set<Lease> extended = new HashSet<>();
		for (int i = 0; i < held.length; i++) {
			if (held[i]) {
				extended.add(leases.get(i));
			}
		}
		return extended;
	}

}
