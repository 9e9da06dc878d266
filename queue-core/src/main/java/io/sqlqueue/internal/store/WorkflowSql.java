package io.sqlqueue.internal.store;

import java.util.Collections;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntFunction;

import org.jspecify.annotations.Nullable;

import io.sqlqueue.Names;

/**
 * The statements of workflows, written once from the dialect's pieces as {@link JobSql}'s
 * are: {@code queue_dependency} (one row per edge), {@code queue_batch} (one row per batch,
 * its counts), and the workflow columns of {@code queue_job} ({@code waiting_for},
 * {@code on_dependency_failure}, {@code batch_id}, {@code settles}).
 * <p>
 * Reads that decide what to write lock what they read where the database can
 * ({@code FOR UPDATE}; SQLite has one writer at a time anyway), so they see the latest
 * committed rows whatever the transaction read before. Counters are decremented by
 * statements that compute the new state from the row as they lock it
 * ({@code CASE WHEN waiting_for = 1}), so the transition to {@code QUEUED} is made once, by
 * the statement that brings the count to zero. MySQL applies the assignments of an
 * {@code UPDATE} from left to right, each seeing the ones before: every {@code CASE} that
 * reads a counter stands before the counter's own assignment.
 */
final class WorkflowSql {

	final String jobs;

	final String dependencies;

	final String batches;

	/** Sets a new job's workflow columns; parameters: status, waiting for, policy, batch id, settles, id. */
	final String link;

	final String insertEdge;

	/** Parameters: total, remaining. */
	final String insertBatch;

	/** Parameters: callback id, batch id. */
	final String setCallback;

	/**
	 * One less to wait for; at zero the job is due, at its own due time or now, whichever is
	 * later. Parameters: id.
	 */
	final String release;

	/** Parameters: last error, id. */
	final String cancelDependent;

	/**
	 * Counts members' ends; the statement that brings {@code remaining} to zero marks the
	 * batch finished. Parameters: ended (twice), succeeded, failed, cancelled, id.
	 */
	final String countInBatch;

	/** The callback of a batch that has just finished; parameters: id. */
	final String finishedCallback;

	final String queueAndStatus;

	final String batch;

	final String callbackOf;

	final String links;

	final String dependenciesOf;

	final String dependentsOf;

	/**
	 * The batches that finished before a moment and whose callback, if they have one, is gone
	 * or finished before it too (a callback still to run, waiting for other jobs, delayed,
	 * retrying, or queued again by an operator, reads its batch), locked, passing over those
	 * another transaction holds, where the database can. Parameters: minus the age in
	 * millis, twice; the most to return.
	 */
	final String prunableBatches;

	private final Map<Integer, String> deleteBatches = new ConcurrentHashMap<>();

	/**
	 * Where a read cannot lock rows (SQLite), the statement that takes the write lock before
	 * the jobs to run after are read; {@code null} elsewhere.
	 */
	final @Nullable String writeLockFirst;

	private final String lock;

	private final Map<Integer, String> lockJobs = new ConcurrentHashMap<>();

	private final Map<Integer, String> markDependencies = new ConcurrentHashMap<>();

	private final Map<Integer, String> ended = new ConcurrentHashMap<>();

	private final Map<Integer, String> clear = new ConcurrentHashMap<>();

	private final Map<Integer, String> settleEdges = new ConcurrentHashMap<>();

	private final Map<Integer, String> edgesFrom = new ConcurrentHashMap<>();

	private final Map<Integer, String> waitingDependents = new ConcurrentHashMap<>();

	private final Map<Integer, String> forgetDependents = new ConcurrentHashMap<>();

	private final Map<Integer, String> forgetDependencies = new ConcurrentHashMap<>();

	private final Map<Integer, String> runningToSettle = new ConcurrentHashMap<>();

	private final Map<Integer, String> edgesTouching = new ConcurrentHashMap<>();

	private final Map<Integer, String> linkedJobs = new ConcurrentHashMap<>();

	WorkflowSql(Dialect dialect, @Nullable String schema) {
		String checkedSchema = Names.requireSchema(schema);
		String prefix = (checkedSchema != null) ? dialect.quote(checkedSchema) + "." : "";
		this.jobs = prefix + "queue_job";
		this.dependencies = prefix + "queue_dependency";
		this.batches = prefix + "queue_batch";
		this.lock = dialect.supports(ClaimMethod.LOCK_THEN_UPDATE) ? "\nFOR UPDATE" : "";
		this.writeLockFirst = dialect.writeLockFirst(this.jobs);
		String now = dialect.now();
		this.link = """
				UPDATE %s SET status = ?, waiting_for = ?, on_dependency_failure = ?, batch_id = ?, settles = ?
				WHERE id = ?""".formatted(this.jobs);
		this.insertEdge = "INSERT INTO %s (depends_on, job_id, settled) VALUES (?, ?, ?)".formatted(this.dependencies);
		this.insertBatch = """
				INSERT INTO %s (total, remaining, succeeded, failed, cancelled, created_at)
				VALUES (?, ?, 0, 0, 0, %s)""".formatted(this.batches, now);
		this.setCallback = "UPDATE %s SET callback_id = ? WHERE id = ?".formatted(this.batches);
		this.release = """
				UPDATE %1$s SET status = CASE WHEN waiting_for = 1 THEN 'QUEUED' ELSE status END,
				    run_at = CASE WHEN waiting_for = 1 AND run_at < %2$s THEN %2$s ELSE run_at END,
				    waiting_for = waiting_for - 1, updated_at = %2$s, version = version + 1
				WHERE id = ? AND status = 'WAITING'""".formatted(this.jobs, now);
		this.cancelDependent = """
				UPDATE %1$s SET status = 'CANCELLED', last_error = ?, finished_at = %2$s, updated_at = %2$s,
				    waiting_for = waiting_for - 1, version = version + 1
				WHERE id = ? AND status = 'WAITING'""".formatted(this.jobs, now);
		this.countInBatch = """
				UPDATE %s SET finished_at = CASE WHEN remaining = ? THEN %s ELSE finished_at END,
				    remaining = remaining - ?, succeeded = succeeded + ?, failed = failed + ?, cancelled = cancelled + ?
				WHERE id = ?""".formatted(this.batches, now);
		this.finishedCallback = """
				SELECT callback_id FROM %s WHERE id = ? AND remaining = 0 AND callback_id IS NOT NULL%s"""
			.formatted(this.batches, this.lock);
		this.queueAndStatus = "SELECT queue, status FROM %s WHERE id = ?".formatted(this.jobs);
		this.batch = "SELECT * FROM %s WHERE id = ?".formatted(this.batches);
		this.callbackOf = "SELECT * FROM %s WHERE callback_id = ?".formatted(this.batches);
		this.links = "SELECT waiting_for, on_dependency_failure, batch_id FROM %s WHERE id = ?".formatted(this.jobs);
		this.dependenciesOf = """
				SELECT j.id, j.handler, j.status FROM %s d JOIN %s j ON j.id = d.depends_on
				WHERE d.job_id = ?
				ORDER BY j.id""".formatted(this.dependencies, this.jobs);
		this.dependentsOf = """
				SELECT j.id, j.handler, j.status FROM %s d JOIN %s j ON j.id = d.job_id
				WHERE d.depends_on = ?
				ORDER BY j.id""".formatted(this.dependencies, this.jobs);
		this.prunableBatches = """
				SELECT id FROM %1$s WHERE finished_at < %3$s
				  AND (callback_id IS NULL OR NOT EXISTS (
				      SELECT 1 FROM %2$s j
				      WHERE j.id = callback_id AND (j.status IN ('WAITING', 'QUEUED', 'RUNNING') OR j.finished_at >= %3$s)))
				ORDER BY id
				LIMIT ?%4$s"""
			.formatted(this.batches, this.jobs, dialect.nowPlusMillis(),
					dialect.supports(ClaimMethod.LOCK_THEN_UPDATE) ? "\nFOR UPDATE SKIP LOCKED" : "");
	}

	/** Jobs of these ids, locked, in id order; parameters: ids…. */
	String lockJobs(int ids) {
		return cached(this.lockJobs, ids,
				(count) -> "SELECT id, status FROM %s WHERE id IN (%s)\nORDER BY id%s".formatted(this.jobs,
						placeholders(count), this.lock));
	}

	/** Notes that these jobs have dependents to settle when they end; parameters: ids…. */
	String markDependencies(int ids) {
		return cached(this.markDependencies, ids, (count) -> """
				UPDATE %s SET settles = CASE WHEN settles = 0 OR settles = 2 THEN settles + 1 ELSE settles END
				WHERE id IN (%s)""".formatted(this.jobs, placeholders(count)));
	}

	/** Of these ended jobs, those with something to settle, locked; parameters: ids…. */
	String ended(int ids) {
		return cached(this.ended, ids, (count) -> """
				SELECT id, settles, batch_id FROM %s WHERE id IN (%s) AND settles <> 0
				ORDER BY id%s""".formatted(this.jobs, placeholders(count), this.lock));
	}

	/** Parameters: ids…. */
	String clear(int ids) {
		return cached(this.clear, ids,
				(count) -> "UPDATE %s SET settles = 0 WHERE id IN (%s)".formatted(this.jobs, placeholders(count)));
	}

	/** The edges out of these jobs to their dependents that were not settled yet; parameters: ids…. */
	String edgesFrom(int ids) {
		return cached(this.edgesFrom, ids, (count) -> """
				SELECT depends_on, job_id FROM %s WHERE depends_on IN (%s) AND settled = 0
				ORDER BY job_id%s""".formatted(this.dependencies, placeholders(count), this.lock));
	}

	/** Marks the edges out of these jobs settled; parameters: ids…. */
	String settleEdges(int ids) {
		return cached(this.settleEdges, ids, (count) -> "UPDATE %s SET settled = 1 WHERE depends_on IN (%s) AND settled = 0"
			.formatted(this.dependencies, placeholders(count)));
	}

	/** Of these jobs, the waiting ones, locked, in id order; parameters: ids…. */
	String waitingDependents(int ids) {
		return cached(this.waitingDependents, ids, (count) -> """
				SELECT id, queue, handler, waiting_for, on_dependency_failure FROM %s
				WHERE id IN (%s) AND status = 'WAITING'
				ORDER BY id%s""".formatted(this.jobs, placeholders(count), this.lock));
	}

	/** Of these jobs, the running ones whose end settles others, with their tokens; parameters: ids…. */
	String runningToSettle(int ids) {
		return cached(this.runningToSettle, ids, (count) -> """
				SELECT id, lease_token FROM %s WHERE id IN (%s) AND status = 'RUNNING' AND settles <> 0"""
			.formatted(this.jobs, placeholders(count)));
	}

	/** The edges into and out of these jobs; parameters: ids…, ids…. */
	String edgesTouching(int ids) {
		return cached(this.edgesTouching, ids, (count) -> """
				SELECT depends_on, job_id FROM %1$s WHERE depends_on IN (%2$s)
				UNION
				SELECT depends_on, job_id FROM %1$s WHERE job_id IN (%2$s)""".formatted(this.dependencies,
				placeholders(count)));
	}

	/** Parameters: ids…. */
	String linkedJobs(int ids) {
		return cached(this.linkedJobs, ids, (count) -> "SELECT id, handler, status FROM %s WHERE id IN (%s) ORDER BY id"
			.formatted(this.jobs, placeholders(count)));
	}

	/** Parameters: batch ids…. */
	String deleteBatches(int ids) {
		return cached(this.deleteBatches, ids,
				(count) -> "DELETE FROM %s WHERE id IN (%s)".formatted(this.batches, placeholders(count)));
	}

	/** Parameters: ids…. */
	String forgetDependents(int ids) {
		return cached(this.forgetDependents, ids, (count) -> "DELETE FROM %s WHERE job_id IN (%s)"
			.formatted(this.dependencies, placeholders(count)));
	}

	/** Parameters: ids…. */
	String forgetDependencies(int ids) {
		return cached(this.forgetDependencies, ids, (count) -> "DELETE FROM %s WHERE depends_on IN (%s)"
			.formatted(this.dependencies, placeholders(count)));
	}

	private static String cached(Map<Integer, String> cache, int count, IntFunction<String> text) {
		return cache.computeIfAbsent(count, text::apply);
	}

	private static String placeholders(int count) {
		return String.join(", ", Collections.nCopies(count, "?"));
	}

}
