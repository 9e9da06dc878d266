package io.sqlqueue;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

import org.jspecify.annotations.Nullable;

/**
 * What a handler may know about the attempt it runs in. Declare a parameter of this type
 * on a {@link JobHandler} method to receive it.
 */
public interface JobContext {

	long jobId();

	String handler();

	String queue();

	/** This attempt's number, from 1. */
	int attempt();

	int maxAttempts();

	/**
	 * The tick a recurring job was fired for (its schedule's due time, on the database's
	 * clock), so a handler can work on "the day it was scheduled for"; {@code null} for a
	 * job that no schedule fired.
	 */
	default @Nullable Instant scheduledFor() {
		return null;
	}

	/**
	 * The job's concurrency key (docs/flow-control.md), or {@code null} for a job without one:
	 * the customer or resource a handler works for, without repeating it in the payload.
	 */
	default @Nullable String concurrencyKey() {
		return null;
	}

	/**
	 * Whether this job's cancel was asked for ({@link JobQueue#cancel(long)}) and this instance
	 * has heard of it: the job is already {@code CANCELLED} and the handler's thread was
	 * interrupted; a handler that works in steps should check this between them and return.
	 */
	default boolean isCancellationRequested() {
		return false;
	}

	/**
	 * The batch this job belongs to, or, for a batch's callback, the batch it was called back
	 * for, with its counts as they are now (read when called): a callback sees every job
	 * ended, with how many succeeded, failed and were cancelled. Empty for a job of no batch.
	 */
	default Optional<BatchProgress> batch() {
		return Optional.empty();
	}

	/**
	 * Extends this attempt's lease now, for handlers that know they will run long. Leases
	 * are extended by the Manager's heartbeat anyway; throws {@link LeaseLostException}
	 * when the job was already handed to another worker.
	 */
	void extendLease();

	/**
	 * Runs {@code body} once per job (docs/durable-steps.md): its result is recorded as JSON
	 * when it returns, and every later run of this job (a retry, a run after a crash or a
	 * lost lease, a resume after a sleep or a signal) returns the recorded result, decoded
	 * as {@code type}, without running the body. A body that throws records nothing, and
	 * the exception leaves this method as it is. At least once: a body that was running
	 * when its instance died runs again; for database work that must happen once, see
	 * {@link #transactionalStep(String, Class, StepBody)}.
	 * @param name 1 to 255 characters, no NUL (the rules of keys); unique within the job
	 * @throws IllegalStateException outside the handler's own run (after it returned), in a
	 * step's body, or past the limits of {@link #MAX_STEPS} records and
	 * {@link #MAX_STEP_RESULT_BYTES} bytes of results per job
	 * @throws ReplayMismatchException when the job's records say its earlier runs went
	 * otherwise: a step this call has no record for while records of earlier runs are still
	 * to be replayed (renamed, removed, or this call inserted before them), or a record met out
	 * of its order (docs/durable-steps.md#changing-a-durable-handler); the body does not run,
	 * and the job fails at once
	 */
	default <T> @Nullable T step(String name, Class<T> type, StepBody<T> body) throws Exception {
		throw new UnsupportedOperationException("This JobContext records no steps");
	}

	/** As {@link #step(String, Class, StepBody)}, for a body with no result. */
	default void step(String name, StepAction body) throws Exception {
		step(name, Void.class, noResult(body));
	}

	/**
	 * As {@link #step(String, Class, StepBody)}, with the body in a transaction on the
	 * queue's {@code DataSource} that also records the step, fenced by this attempt's lease:
	 * what the body writes through that {@code DataSource} (a {@code JdbcTemplate}, or
	 * anything that takes its connection through Spring's {@code DataSourceUtils}) and the
	 * record commit together, or not at all. So its database effect happens exactly once,
	 * across crashes and lost leases. In a transactional handler the step joins the handler's
	 * transaction instead, which commits with the job's completion.
	 */
	default <T> @Nullable T transactionalStep(String name, Class<T> type, StepBody<T> body) throws Exception {
		throw new UnsupportedOperationException("This JobContext records no steps");
	}

	/** As {@link #transactionalStep(String, Class, StepBody)}, for a body with no result. */
	default void transactionalStep(String name, StepAction body) throws Exception {
		transactionalStep(name, Void.class, noResult(body));
	}

	/**
	 * Parks the job for {@code duration} on the database's clock, durably: the handler's run
	 * ends here (the call does not return; it unwinds the handler with an {@link Error} that
	 * must not be caught), no thread or connection waits, no attempt is spent, and the job runs
	 * again, on any instance, once the time is up, with its steps replayed from their records
	 * and this call returning at once. Sleeps are told apart by the order a run reaches
	 * them: a handler must reach its steps and sleeps in the same order on every run.
	 * @throws IllegalStateException in a transactional handler (its transaction would be
	 * held across the sleep), or outside the handler's own run
	 */
	default void sleep(Duration duration) {
		throw new UnsupportedOperationException("This JobContext cannot park its job");
	}

	/** As {@link #sleep(Duration)}, until {@code time}; a time already past does not park. */
	default void sleepUntil(Instant time) {
		throw new UnsupportedOperationException("This JobContext cannot park its job");
	}

	/**
	 * Gives the job back to run again from the top after {@code delay}, without spending an
	 * attempt and without a record (unlike {@link #sleep}): for "not yet, look again later".
	 * Does not return, as {@link #sleep} does not.
	 */
	default void snooze(Duration delay) {
		throw new UnsupportedOperationException("This JobContext cannot park its job");
	}

	/**
	 * The payload of the signal of this name sent to this job ({@link JobQueue#signal}),
	 * decoded as {@code type}; when none has arrived, the job parks (as {@link #sleep} does)
	 * until it arrives, from any instance, or until {@code timeout} has passed, and this call
	 * then returns on the job's next run: the payload, or empty when the time ran out (the
	 * caller chooses what a timeout means: {@code .orElseThrow(...)} fails the attempt). A
	 * signal that arrived first is kept for the job. Once a run has found a wait timed out,
	 * every later run finds the same.
	 * @param name 1 to 255 characters, no NUL
	 */
	default <T> Optional<T> awaitSignal(String name, Class<T> type, Duration timeout) {
		throw new UnsupportedOperationException("This JobContext cannot park its job");
	}

	/**
	 * Whether this run of the job takes the branch of a change to its handler named
	 * {@code name}, for a handler that changes while jobs are in flight
	 * (docs/durable-steps.md#changing-a-durable-handler):
	 * <pre>{@code
	 * String receipt = context.patched("charge-card")
	 *         ? context.step("charge-card", String.class, () -> payments.chargeCard(order))
	 *         : context.step("charge", String.class, () -> payments.charge(order));
	 * }</pre>
	 * {@code true} for a job that reaches this call with nothing recorded past it: a job that
	 * starts under the code that has it, or one whose runs had recorded no further; the
	 * answer is then recorded as a record of its own (kind {@link JobStep.Kind#PATCH}), in
	 * order with the job's steps, so every later run replays {@code true}. {@code false} for
	 * a job whose earlier runs recorded steps, sleeps or waits that this run has not yet
	 * replayed (they recorded past this point under code without the marker, so they must go
	 * on down the old branch); nothing is recorded, and every later run answers the same. One
	 * run asked twice answers the same twice.
	 * <p>
	 * Call it on the handler's own thread, after joining the futures of steps started on other
	 * threads (their records, not yet replayed, would count as recorded past this point). A
	 * marker that a later version of the handler no longer asks for is skipped on replay: once
	 * no job that can take the old branch is left, drop the call and the old branch.
	 * @param name 1 to 255 characters, no NUL; unique within the job
	 * @throws IllegalStateException from another thread than the handler's, outside the
	 * handler's own run, or past {@link #MAX_STEPS} records
	 */
	default boolean patched(String name) {
		throw new UnsupportedOperationException("This JobContext records no steps");
	}

	/** The most records (steps, sleeps, waits for signals and patch markers) one job keeps. */
	int MAX_STEPS = 1_000;

	/** The longest sleep, snooze or wait for a signal: 100 years, well within every database's timestamps. */
	Duration MAX_PARK = Duration.ofDays(36_500);

	/** The most bytes of JSON of all the results of one job's steps. */
	int MAX_STEP_RESULT_BYTES = 4 * 1024 * 1024;

	/** A step's body; it may throw anything, which leaves the step unrecorded. */
	@FunctionalInterface
	interface StepBody<T> {

		@Nullable T run() throws Exception;

	}

	private static StepBody<Void> noResult(StepAction action) {
		return () -> {
			action.run();
			return null;
		};
	}

	/** A step's body without a result. */
	@FunctionalInterface
	interface StepAction {

		void run() throws Exception;

	}

}
