package io.sqlqueue.admin;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

import org.jspecify.annotations.Nullable;

import io.sqlqueue.flow.Fairness;
import io.sqlqueue.flow.Limit;

/**
 * What an operator may do to the queue, in one place: the Actuator endpoint, the dashboard
 * and application code call the same methods, with the same rules and the same messages.
 * An action answers an {@link AdminResult}: done, or not done with a {@link Refusal} and its
 * message when the job, schedule, limit or queue was not in a state for it. A request wrong
 * in itself (more than {@link #MAX_BULK} jobs, an invalid limit, a malformed or unknown
 * queue) throws a {@link RefusedException} and changes nothing.
 * <p>
 * The starter provides one as a bean; inject it ({@code QueueAdmin admin}) and call it.
 * Who may call it is the application's concern: the endpoint and the dashboard guard their
 * own requests.
 * <p>
 * Every action that changes something is written to the audit log ({@link #audit(int)}),
 * with who did it as {@link #by(String)} names them.
 * <p>
 * The searches and counts ({@link #search}, {@link #searchNewer}, {@link #count}) tolerate
 * staleness: where the application names a read-only replica ({@code @SqlQueueReadDataSource}),
 * they read it, and {@link #readStaleness()} says how far behind it is. Every action, and
 * every other read, uses the queue's own database.
 */
public interface QueueAdmin {

	/** Most jobs one bulk action (a retry of the failed jobs of a queue or handler) changes. */
	int MAX_BULK = 1000;

	/** Most jobs a {@link #bulk} action changes in one short transaction (a chunk). */
	int BULK_CHUNK = 500;

	/** Most jobs one {@link #search} page holds. */
	int MAX_PAGE_SIZE = 500;

	/**
	 * Up to {@code limit} jobs that match the filter, newest first: the newest when
	 * {@code before} is {@code null}, else those with a smaller id (a page's
	 * {@link JobPage#older()} cursor). Keyset pages: the thousandth costs what the first does.
	 * @throws RefusedException ({@link Refusal#INVALID_FILTER}) when the filter asks for what
	 * this database cannot search by, or {@code limit} is not 1 to {@link #MAX_PAGE_SIZE}
	 * @throws ReplicaReadException when it reads a replica ({@link #readStaleness()}) that
	 * fails: it never falls back to the queue's own database
	 */
	JobPage search(JobFilter filter, @Nullable Long before, int limit);

	/**
	 * Up to {@code limit} jobs that match the filter with an id greater than {@code after}
	 * (a page's {@link JobPage#newer()} cursor), newest first.
	 * @throws RefusedException as {@link #search}
	 * @throws ReplicaReadException as {@link #search}
	 */
	JobPage searchNewer(JobFilter filter, long after, int limit);

	/**
	 * How many jobs match the filter now: what a {@link #bulk} action with it would walk, to
	 * show before it is confirmed. Read from the replica where there is one, so it may lag
	 * the action, which always walks the queue's own database.
	 * @throws RefusedException as {@link #search}
	 * @throws ReplicaReadException as {@link #search}
	 */
	long count(JobFilter filter);

	/**
	 * Where {@link #search}, {@link #searchNewer} and {@link #count} read, and how far behind
	 * the queue's own database that is now: {@link Staleness.State#PRIMARY} without a replica
	 * (no query), else what the replica says of itself (one query on it). Never throws: a
	 * replica that cannot be asked is {@link Staleness.State#UNREACHABLE}, with the reason.
	 */
	default Staleness readStaleness() {
		return Staleness.primary(Instant.now());
	}

	/**
	 * Retries, cancels or deletes every job that matches the filter, in chunks of at most
	 * {@link #BULK_CHUNK} jobs by id, each in short transactions of its own (also when called
	 * inside a transaction: that one is suspended, and the changes do not roll back with it),
	 * so no lock is held for long and workers run on meanwhile. Each job changes as the one-job action changes it
	 * ({@link #retry}, {@link #cancel}; a delete as the retention's pruning) or not at all: one
	 * whose state the action does not apply to, or that changed meanwhile, is counted as
	 * skipped. Jobs enqueued after the action began are left alone. Not done
	 * ({@link Refusal#NO_MATCHING_JOBS}) when the filter matched nothing: a no-op.
	 * @throws RefusedException ({@link Refusal#NO_FILTER}) for a filter that names nothing,
	 * ({@link Refusal#INVALID_FILTER}) for one this database cannot search by; nothing changes
	 */
	BulkResult bulk(BulkAction action, JobFilter filter);

	/**
	 * Queues a {@code FAILED} job again with a fresh set of attempts. Refused when there is
	 * no such job ({@link Refusal#NO_SUCH_JOB}), when it is not failed
	 * ({@link Refusal#NOT_FAILED}), or when an unfinished job holds its unique key
	 * ({@link Refusal#UNIQUE_KEY_TAKEN}).
	 */
	AdminResult retry(long id);

	/**
	 * Queues a {@code FAILED} durable job again with a fresh set of attempts, as {@link #retry}
	 * does, after deleting its records from record {@code record} on (numbered from 1 in the
	 * order they were written, as {@code JobQueue.steps} lists them, and as a
	 * {@link io.sqlqueue.ReplayMismatchException}'s message names them): its next run replays
	 * the records before, and runs what its handler's code calls from there on, bodies
	 * included. For a job that stopped because its handler changed while it was in flight
	 * (docs/durable-steps.md#changing-a-durable-handler). Its signals stay. Refused as
	 * {@link #retry} is, and when the job has fewer records ({@link Refusal#NO_SUCH_RECORD});
	 * then nothing changes.
	 */
	AdminResult retryFrom(long id, int record);

	/**
	 * Cancels a {@code WAITING} or {@code QUEUED} job at once; for a {@code RUNNING} one asks
	 * the instance that runs it to stop it (the result's status then still says
	 * {@code RUNNING}). Refused when there is no such job ({@link Refusal#NO_SUCH_JOB}) or it
	 * has finished ({@link Refusal#NOT_CANCELLABLE}).
	 */
	AdminResult cancel(long id);

	/**
	 * Queues again up to {@link #MAX_BULK} failed jobs, oldest first, of this queue and this
	 * handler ({@code null}: any). A failed job whose unique key an unfinished job holds
	 * stays failed. Not done ({@link Refusal#NO_FAILED_JOBS}) when there were none.
	 */
	default AdminResult retryFailed(@Nullable String queue, @Nullable String handler) {
		return retryFailed(queue, handler, MAX_BULK);
	}

	/**
	 * As {@link #retryFailed(String, String)}, up to {@code limit} jobs.
	 * @throws RefusedException ({@link Refusal#BULK_LIMIT}) when {@code limit} is not 1 to
	 * {@link #MAX_BULK}
	 */
	AdminResult retryFailed(@Nullable String queue, @Nullable String handler, int limit);

	/**
	 * Fires the schedule now: enqueues its job (the result's {@code ids}) whatever its next
	 * tick, paused or not. Refused when there is no such schedule
	 * ({@link Refusal#NO_SUCH_SCHEDULE}) or it could not fire ({@link Refusal#NOT_FIRED}).
	 */
	AdminResult triggerSchedule(String name);

	/**
	 * Pauses the schedule: it fires no more until resumed. Refused when there is no such
	 * schedule or it was paused already ({@link Refusal#ALREADY_PAUSED}).
	 */
	AdminResult pauseSchedule(String name);

	/**
	 * Resumes a paused schedule from its next tick. Refused when there is no such schedule
	 * or it was not paused ({@link Refusal#NOT_PAUSED}).
	 */
	AdminResult resumeSchedule(String name);

	/**
	 * Sets the queue's own limit, or with {@code keys} the limit of the concurrency keys that
	 * pattern matches, on every instance. Refused when the application has no flow control
	 * ({@link Refusal#NO_LIMITS}).
	 * @throws RefusedException ({@link Refusal#INVALID_LIMIT}) when the queue's name or the
	 * pattern is not valid
	 */
	AdminResult setLimit(String queue, @Nullable String keys, Limit limit);

	/**
	 * As {@link #setLimit(String, String, Limit)} with the limit as an operator types it:
	 * a concurrency and/or a rate such as {@code 100/1m}.
	 * @throws RefusedException ({@link Refusal#INVALID_LIMIT}) when neither is given or the
	 * rate is malformed
	 */
	AdminResult setLimit(String queue, @Nullable String keys, @Nullable Integer concurrency,
			@Nullable String rateLimit);

	/**
	 * Removes the queue's own limit, or with {@code keys} the limit of that key pattern.
	 * Refused when there was none ({@link Refusal#NO_SUCH_LIMIT}) or the application has no
	 * flow control ({@link Refusal#NO_LIMITS}).
	 * @throws RefusedException ({@link Refusal#INVALID_LIMIT}) when the queue's name or the
	 * pattern is not valid
	 */
	AdminResult removeLimit(String queue, @Nullable String keys);

	/**
	 * Makes the queue's concurrency keys take turns among its due jobs of equal priority
	 * (docs/flow-control.md#fair-turns), on every instance, replacing the fair turns it had.
	 * Refused when the application has no flow control ({@link Refusal#NO_LIMITS}).
	 * @throws RefusedException ({@link Refusal#INVALID_LIMIT}) when the queue's name is not valid
	 */
	AdminResult setFairness(String queue, Fairness fairness);

	/**
	 * As {@link #setFairness(String, Fairness)} with the weights as an operator types them:
	 * {@code gold:*=3, tin=1}, or blank for round-robin.
	 * @throws RefusedException ({@link Refusal#INVALID_LIMIT}) when a weight is below 1 or not a
	 * number, or a pattern cannot match
	 */
	AdminResult setFairness(String queue, @Nullable String weights);

	/**
	 * Ends the queue's fair turns: its jobs run in priority and due order again. Refused when
	 * it had none ({@link Refusal#NO_SUCH_LIMIT}) or the application has no flow control
	 * ({@link Refusal#NO_LIMITS}).
	 */
	AdminResult removeFairness(String queue);

	/**
	 * The health of the queue's own tables as last read on a schedule (never read for this
	 * call): their size and dead rows, and the transactions that hold the database's horizon
	 * back (docs/operations.md). Its {@link TableHealth#readAt()} is {@code null} where this
	 * instance does not read it.
	 */
	TableHealth tableHealth();

	/**
	 * As {@link #pauseQueue(String, String)}, not saying by whom.
	 */
	default AdminResult pauseQueue(String queue) {
		return pauseQueue(queue, null);
	}

	/**
	 * Pauses the queue on every instance: each stops claiming its jobs within a poll
	 * interval (this one at once); jobs running go on to their end, and queued ones stay
	 * {@code QUEUED} until {@link #resumeQueue(String)}. The pause is stored, so it holds
	 * across restarts and for instances that start later. Not done
	 * ({@link Refusal#QUEUE_ALREADY_PAUSED}) when it was paused already: a no-op.
	 * @param by who pauses it, stored with the pause; {@code null} for unnamed
	 * @throws RefusedException ({@link Refusal#INVALID_QUEUE}) when the name is blank or
	 * malformed, or ({@link Refusal#UNKNOWN_QUEUE}) when no handler of this instance serves
	 * the queue, no running instance lists it and no job waits in it; nothing is stored
	 */
	AdminResult pauseQueue(String queue, @Nullable String by);

	/**
	 * Resumes a paused queue: this instance claims its jobs at once, the others within a poll
	 * interval. Not done ({@link Refusal#QUEUE_NOT_PAUSED}) when it was not paused: a no-op.
	 * @throws RefusedException ({@link Refusal#INVALID_QUEUE}) when the name is blank or
	 * malformed
	 */
	AdminResult resumeQueue(String queue);

	/**
	 * This admin acting for {@code actor}: the actions of the one it returns are written to
	 * the audit log as done by them ({@link AuditEntry#actor()}). The endpoint and the
	 * dashboard pass the signed-in user's name. {@code null} or blank names no one.
	 */
	default QueueAdmin by(@Nullable String actor) {
		return this;
	}

	/**
	 * The newest {@code limit} entries of the audit log, newest first.
	 * @throws RefusedException ({@link Refusal#BULK_LIMIT}) when {@code limit} is not 1 to
	 * {@link #MAX_BULK}
	 */
	default List<AuditEntry> audit(int limit) {
		return List.of();
	}

	/** The queues paused now, by name. */
	List<PausedQueue> pausedQueues();

	/**
	 * The instances that run jobs, the longest running first, with those gone but not yet
	 * deleted ({@link QueueInstance#gone()}).
	 */
	List<QueueInstance> instances();

	/**
	 * The ended attempts of a job, oldest first, as the database keeps them with the job
	 * whichever instance ran them; an attempt still running is on the job's row only. Empty
	 * when there is no such job (never run, it has an empty list). An attempt made by an
	 * instance older than the attempt history, or while it was off
	 * ({@code sqlqueue.history.attempts}), has no row: fewer rows than the job's count of
	 * attempts say so.
	 */
	Optional<List<JobAttempt>> attempts(long id);

}
