package io.sqlqueue.internal.manager;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

import io.sqlqueue.LeaseLostException;
import io.sqlqueue.internal.store.Completion;
import io.sqlqueue.internal.store.JobStore;

/**
 * Runs a transactional handler in the transaction that completes its job, fenced by the
 * lease at this moment: its writes and the completion commit together, or roll back
 * together when it throws, when it ran past its timeout, or when its lease was lost
 * meanwhile. When the handler returned but its transaction still failed, the attempt is
 * recorded as failed ({@link OutcomeRecorder#completionFailed}). Called by the
 * {@link AttemptRunner}, for the Manager's workers and the {@link JobRunner} alike.
 */
final class TransactionalAttempt {

	private TransactionalAttempt() {
	}

	/**
	 * @param completion the success to record for the handler's result
	 * @throws Throwable what the handler threw (its writes rolled back), for the caller to record
	 */
	static void run(Attempt attempt, AttemptContext context, JobStore store, OutcomeRecorder recorder,
			Function<@Nullable Object, Completion> completion) throws Throwable {
		AtomicBoolean settledHere = new AtomicBoolean();
		try {
			store.inTransaction(() -> {
				Object result;
				try {
					result = attempt.handler.invoker().invoke(attempt.job.payload(), context);
					context.handlerReturning();
				}
				catch (Throwable failure) {
					throw new HandlerFailed(failure);
				}
				attempt.handlerReturned();
				if (!attempt.settle()) {
					throw new SettledElsewhere();
				}
				settledHere.set(true);
				if (!store.completeWhileLeased(completion.apply(result))) {
					throw new LeaseLostException(attempt.job.id());
				}
				return result;
			});
			recorder.completed(attempt, true);
		}
		catch (HandlerFailed ex) {
			throw ex.getCause();
		}
		catch (SettledElsewhere ex) {
			// The timeout sweep or a cancel recorded the attempt's end; the handler's writes are rolled back.
		}
		catch (LeaseLostException ex) {
			recorder.leaseLost(attempt, "transactional completion, rolled back");
		}
		catch (RuntimeException ex) {
			if (!settledHere.get()) {
				throw ex;
			}
			// The handler returned, but writing its success failed (a deadlock while settling, a
			// constraint checked at commit, a connection lost at commit): this attempt's end is
			// still ours to record, or else the job would wait for its lease and count as a crash.
			recorder.completionFailed(attempt, ex);
		}
	}

	/** A handler's failure, carried out of the transaction that it rolls back. */
	private static final class HandlerFailed extends RuntimeException {

		HandlerFailed(Throwable cause) {
			super(cause);
		}

	}

	/** The attempt ended elsewhere while its handler ran: its transaction must not commit. */
	private static final class SettledElsewhere extends RuntimeException {

		SettledElsewhere() {
			super(null, null, false, false);
		}

	}

}
