package io.sqlqueue.internal.store;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

import io.sqlqueue.Names;

import static io.sqlqueue.internal.store.IdChunks.placeholders;

/**
 * The statements of running jobs' leases ({@link JobLeases}, and the reaper's read in
 * {@link JobEnds}): their extension, fenced by the token, on the job's row or beside it
 * ({@code queue_lease_extension}) while another transaction holds the row; the notes of an
 * instance that stopped while its handlers ran; the leases that expired; and the running
 * jobs' rows, read or locked, with their tokens.
 */
final class LeaseSql {

	private final String table;

	/** Extends one lease, fenced; parameters: lease millis, id, token. */
	final String extendLease;

	/** The dialect's one statement that extends many leases, passing over locked rows, or {@code null}. */
	final @Nullable String extendLeases;

	final String expiredLeases;

	final String lockExpiredLeases;

	/**
	 * Writes one lease's expiry beside its row ({@code queue_lease_extension}), after
	 * {@link #dropLeaseExtension}; parameters: id, token, lease millis.
	 */
	final String extendLeaseBeside;

	/** Deletes one lease's extension; parameters: id, token. */
	final String dropLeaseExtension;

	/** Deletes the extensions past their expiry (not the notes of {@link #leaveAtStop}); no parameters. */
	final String dropEndedLeaseExtensions;

	/**
	 * Notes that the instance stopped while the job's handler still ran, after
	 * {@link #dropLeaseExtension}: the lease's end is then no crash. It extends nothing (it
	 * expires as written), and is deleted when the job is reaped; parameters: id, token.
	 */
	final String leaveAtStop;

	private final Map<Integer, String> lockRunning = new ConcurrentHashMap<>();

	private final Map<Integer, String> running = new ConcurrentHashMap<>();

	private final Map<Integer, String> lockPlainRunning = new ConcurrentHashMap<>();

	LeaseSql(Dialect dialect, @Nullable String schema) {
		String checkedSchema = Names.requireSchema(schema);
		String prefix = (checkedSchema != null) ? dialect.quote(checkedSchema) + "." : "";
		this.table = prefix + "queue_job";
		String leaseExtensions = leaseExtensions(dialect, schema);
		String now = dialect.now();
		String nowPlus = dialect.nowPlusMillis();
		this.extendLease = """
				UPDATE %s SET lease_expires_at = %s
				WHERE id = ? AND lease_token = ? AND status = 'RUNNING'""".formatted(this.table, nowPlus);
		this.extendLeases = dialect.extendLeases(this.table);
		this.expiredLeases = """
				SELECT id, queue, handler, lease_owner, lease_token, attempts, max_attempts, crashes,
				    cancel_requested_at,
				    EXISTS (SELECT 1 FROM %s g WHERE g.job_id = id AND g.token = lease_token AND g.stopped = TRUE) AS stopped
				FROM %s
				WHERE status = 'RUNNING' AND %s
				ORDER BY lease_expires_at
				LIMIT ?""".formatted(leaseExtensions, this.table, leaseEnded(leaseExtensions, now));
		this.lockExpiredLeases = this.expiredLeases + "\nFOR UPDATE SKIP LOCKED";
		this.extendLeaseBeside = "INSERT INTO %s (job_id, token, expires_at) VALUES (?, ?, %s)"
			.formatted(leaseExtensions, nowPlus);
		this.dropLeaseExtension = "DELETE FROM %s WHERE job_id = ? AND token = ?".formatted(leaseExtensions);
		this.dropEndedLeaseExtensions = "DELETE FROM %s WHERE expires_at < %s AND stopped = FALSE"
			.formatted(leaseExtensions, now);
		this.leaveAtStop = "INSERT INTO %s (job_id, token, expires_at, stopped) VALUES (?, ?, %s, TRUE)"
			.formatted(leaseExtensions, now);
	}

	/** The table of leases extended beside their row, schema-qualified. */
	static String leaseExtensions(Dialect dialect, @Nullable String schema) {
		String checkedSchema = Names.requireSchema(schema);
		return ((checkedSchema != null) ? dialect.quote(checkedSchema) + "." : "") + "queue_lease_extension";
	}

	/**
	 * Of these jobs, the running ones with their tokens, locked, passing over those another
	 * transaction has locked; parameters: ids….
	 */
	String lockRunning(int ids) {
		return this.lockRunning.computeIfAbsent(ids, (count) -> running(count) + "\nFOR UPDATE SKIP LOCKED");
	}

	/**
	 * As {@link #lockRunning}, of the jobs whose end settles nothing else (a completion flush's:
	 * those others are completed with what they settle, in a transaction of their own).
	 */
	String lockPlainRunning(int ids) {
		return this.lockPlainRunning.computeIfAbsent(ids,
				(count) -> running(count) + " AND settles = 0\nFOR UPDATE SKIP LOCKED");
	}

	/** Of these jobs, the running ones with their tokens, as committed (no lock); parameters: ids…. */
	String running(int ids) {
		return this.running.computeIfAbsent(ids, (count) -> "SELECT id, lease_token FROM %s WHERE id IN (%s) AND status = 'RUNNING'"
			.formatted(this.table, placeholders(count)));
	}

	/**
	 * Whether a running job's lease holds at {@code time}: it ends at the later of the row's
	 * expiry and the expiry the heartbeat wrote beside the row, for the same token, while
	 * another transaction held the row ({@code queue_lease_extension}). The extension's
	 * columns are named apart from the job's ({@code token}, not {@code lease_token}), so that
	 * {@code id} and {@code lease_token} in the subquery are the outer row's, whatever the
	 * table's qualified name.
	 */
	static String leaseHolds(String leaseExtensions, String time) {
		return "(lease_expires_at >= %s OR %s)".formatted(time, extendedBeside(leaseExtensions, time));
	}

	/** The negation of {@link #leaseHolds}, written so that the row's expiry can be read from its index. */
	static String leaseEnded(String leaseExtensions, String time) {
		return "lease_expires_at < %s AND NOT %s".formatted(time, extendedBeside(leaseExtensions, time));
	}

	private static String extendedBeside(String leaseExtensions, String time) {
		return "EXISTS (SELECT 1 FROM %s x WHERE x.job_id = id AND x.token = lease_token AND x.expires_at >= %s)"
			.formatted(leaseExtensions, time);
	}

}
