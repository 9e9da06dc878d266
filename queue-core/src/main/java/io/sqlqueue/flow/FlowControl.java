package io.sqlqueue.flow;

import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Limits on how many jobs run at once and start per period, across every instance
 * (docs/flow-control.md): of a queue as a whole, and of each concurrency key of a queue
 * ({@link io.sqlqueue.Job#concurrencyKey}) that a pattern matches. The claim enforces them, so
 * jobs over a limit stay {@code QUEUED} until there is room.
 * <p>
 * Limits live in the database: a change here holds for every instance from its next claim,
 * commits at once (apart from any transaction of the caller), and wakes the Managers (this
 * instance's through the {@link #addChangeListener listeners}, others' through PostgreSQL's
 * notifications or at their next poll), so that a raised or removed limit lets waiting jobs
 * start at once.
 * <p>
 * The implementation the starter builds is {@code io.sqlqueue.internal.flow.DefaultFlowControl}.
 */
public interface FlowControl {

	/** The limits of every queue that has any. */
	List<QueueLimits> all();

	/** The limits of a queue (none when it has none). */
	QueueLimits limits(String queue);

	/** Limits the queue as a whole: its jobs running at once and starting per period, across every instance. */
	void setLimit(String queue, Limit limit);

	/** Limits each concurrency key of the queue that {@code keys} matches (see {@link KeyLimit}). */
	void setKeyLimit(String queue, String keys, Limit limit);

	/** Removes the queue's own limit; false when it had none. Its key limits stay. */
	boolean removeLimit(String queue);

	/** Removes the limit of the keys of the queue that {@code keys} matches; false when there was none. */
	boolean removeKeyLimit(String queue, String keys);

	/**
	 * Makes the keys of the queue take turns among its due jobs of equal priority
	 * ({@link Fairness}), replacing the fair turns it had; across every instance from their
	 * next claim.
	 */
	void setFairness(String queue, Fairness fairness);

	/** Ends the queue's fair turns; false when it had none. Its limits stay. */
	boolean removeFairness(String queue);

	/** Keys a {@link #fairShares} shows at most: those with the most jobs due. */
	int MAX_FAIR_SHARES = 100;

	/**
	 * A fair queue's keys now: the {@link #MAX_FAIR_SHARES} with the most jobs due (then by key),
	 * each with its recent share of starts; empty for a queue without fair turns. Counts the
	 * queue's due jobs, a read that grows with them: for operators' views, not for a loop.
	 */
	List<FairKeyShare> fairShares(String queue);

	/**
	 * Stores the fair turns the application declares from one source (at start-up), as
	 * {@link #declare} does limits: new and changed ones are set, and those stored from this
	 * source that it no longer declares are removed, of the queues it serves only.
	 * @param fairness by queue
	 */
	void declareFairness(LimitSource source, Map<String, Fairness> fairness, Set<String> served);

	/**
	 * Stores the limits the application declares from one source (at start-up): new and
	 * changed ones are set (replacing one of the same queue and keys set otherwise), and those
	 * stored from this source that it no longer declares are removed, of the queues it serves
	 * only: an instance of another application, or of another version with other handlers,
	 * may declare limits of queues this one knows nothing of, and they stay. One that a live
	 * instance still declares (another version's, during a rolling deploy) stays too, until
	 * its declaration lapses (docs/flow-control.md, "Versions").
	 * @param served the queues this instance serves (runs handlers of)
	 * @throws IllegalStateException when one queue and pattern are declared twice
	 */
	void declare(LimitSource source, List<LimitDefinition> limits, Set<String> served);

	/**
	 * How many due jobs the limits hold back now, per limited queue and by the limit that
	 * does ({@code queue-concurrency}, {@code queue-rate}, {@code key-concurrency},
	 * {@code key-rate}; see the admission rules of the claim).
	 */
	Map<String, Map<String, Long>> throttled();

	/**
	 * Deletes the key windows that count for nothing any more; returns how many. Claims of a
	 * queue with key rate limits do so themselves, once a minute per instance.
	 */
	int pruneWindows();

	/** Tells {@code listener} which queue's limits changed, once the change has committed. */
	void addChangeListener(Consumer<Set<String>> listener);

}
