package io.sqlqueue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import io.sqlqueue.handler.HandlerDefinition;
import io.sqlqueue.internal.manager.Manager;
import io.sqlqueue.internal.store.JobStore;
import io.sqlqueue.internal.store.Lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Failures on every database: retried with backoff on the database's clock, failed at once
 * when not retryable or out of time, and retried by an operator.
 * {@link QueueConformanceTests} implements this.
 */
interface RetryConformance extends ConformanceSupport {

	@Test
	default void failingJobIsRetriedWithBackoffThenFailsWithItsLastError() {
		AtomicInteger calls = new AtomicInteger();
		handler("flaky", (payload, context) -> {
			throw new IllegalStateException("boom " + calls.incrementAndGet());
		});
		fixture().startManager((s) -> s);
		long id = fixture().queue().enqueue("flaky", null);
		awaitStatus(id, JobStatus.FAILED);
		JobRecord job = fixture().job(id);
		assertThat(job.attempts()).isEqualTo(3);
		assertThat(calls).hasValue(3);
		assertThat(job.lastError()).startsWith("java.lang.IllegalStateException: boom 3");
		assertThat(job.finishedAt()).isNotNull();
	}

	@Test
	default void retryWaitsForItsBackoffOnTheDatabaseClock() {
		List<Instant> starts = Collections.synchronizedList(new ArrayList<>());
		AtomicInteger calls = new AtomicInteger();
		handler("once-flaky", (payload, context) -> {
			starts.add(fixture().job(context.jobId()).startedAt());
			if (calls.incrementAndGet() == 1) {
				throw new IllegalStateException("first attempt fails");
			}
			return null;
		});
		fixture().startManager((s) -> s.retryPolicy(new io.sqlqueue.handler.RetryPolicy(3,
				Duration.ofMillis(500), 2.0, Duration.ofSeconds(1), 0.0)));
		long id = fixture().queue().enqueue("once-flaky", null);
		awaitStatus(id, JobStatus.SUCCEEDED);
		assertThat(fixture().job(id).attempts()).isEqualTo(2);
		assertThat(Duration.between(starts.get(0), starts.get(1))).isGreaterThanOrEqualTo(Duration.ofMillis(500));
	}

	@Test
	default void nonRetryableExceptionFailsAtOnce() {
		handler("invalid", (payload, context) -> {
			throw new NonRetryableException("no such customer");
		});
		fixture().register(new HandlerDefinition("listed", "default", null, null,
				Set.of(UnsupportedOperationException.class), (payload, context) -> {
					throw new UnsupportedOperationException("listed on the handler");
				}, "listed"));
		fixture().startManager((s) -> s);
		long first = fixture().queue().enqueue("invalid", null);
		long second = fixture().queue().enqueue("listed", null);
		awaitStatus(first, JobStatus.FAILED);
		awaitStatus(second, JobStatus.FAILED);
		assertThat(fixture().job(first).attempts()).isEqualTo(1);
		assertThat(fixture().job(first).lastError()).contains("no such customer");
		assertThat(fixture().job(second).attempts()).isEqualTo(1);
	}

	@Test
	default void failedJobCanBeRetriedByAnOperatorAndQueuedJobCancelled() {
		AtomicBoolean broken = new AtomicBoolean(true);
		handler("fixable", (payload, context) -> {
			if (broken.get()) {
				throw new NonRetryableException("broken");
			}
			return "fixed";
		});
		fixture().startManager((s) -> s);
		long id = fixture().queue().enqueue("fixable", null);
		awaitStatus(id, JobStatus.FAILED);
		assertThat(fixture().queue().cancel(id)).isFalse();
		broken.set(false);
		assertThat(fixture().queue().retry(id)).isTrue();
		awaitStatus(id, JobStatus.SUCCEEDED);
		assertThat(fixture().job(id).attempts()).isEqualTo(1);
		assertThat(fixture().queue().retry(id)).isFalse();

		long delayed = fixture().queue().enqueue(Job.of("fixable", null).delay(Duration.ofHours(1)));
		assertThat(fixture().queue().cancel(delayed)).isTrue();
		assertThat(fixture().status(delayed)).isEqualTo(JobStatus.CANCELLED);
		assertThat(fixture().queue().cancel(delayed)).isFalse();
		assertThat(fixture().queue().cancel(-1)).isFalse();
	}

	@Test
	default void handlerThatOutlivesItsTimeoutIsInterruptedAndItsAttemptFails() {
		AtomicBoolean interrupted = new AtomicBoolean();
		fixture().register(new HandlerDefinition("hangs", "default", 1, Duration.ofMillis(300), Set.of(),
				(payload, context) -> {
					try {
						Thread.sleep(60_000);
					}
					catch (InterruptedException ex) {
						interrupted.set(true);
						throw ex;
					}
					return null;
				}, "hangs"));
		Manager manager = fixture().startManager((s) -> s);
		long id = fixture().queue().enqueue("hangs", null);
		awaitStatus(id, JobStatus.FAILED);
		assertThat(fixture().job(id).lastError()).contains("timeout of PT0.3S");
		await().atMost(WAIT).untilTrue(interrupted);
		assertThat(manager.leaseLosses()).isZero();
	}

	@Test
	default void operatorRetriesAllFailedJobsOfAQueueOrAHandlerOldestFirst() {
		List<Long> ids = fixture().queue()
			.enqueueAll(List.of(Job.of("work", 1), Job.of("work", 2), Job.of("other", 3), Job.of("work", 4).queue("mail"),
					Job.of("work", 5).uniqueKey("k")));
		List<JobRecord> claimed = new ArrayList<>(claim("default", 10, "work", "other"));
		claimed.addAll(claim("mail", 10, "work"));
		assertThat(claimed).hasSize(5);
		claimed.forEach((job) -> fixture().store().fail(new Lease(job.id(), job.leaseToken()), "broken"));
		long holder = fixture().queue().enqueue(Job.of("work", 6).uniqueKey("k"));
		JobStore store = fixture().store();
		assertThat(store.retryAllFailed(null, "other", 10)).containsExactly(ids.get(2));
		assertThat(store.retryAllFailed("default", "work", 1)).containsExactly(ids.get(0));
		assertThat(store.retryAllFailed("default", null, 10)).containsExactly(ids.get(1));
		assertThat(store.retryAllFailed("nowhere", null, 10)).isEmpty();
		assertThat(store.retryAllFailed(null, null, 10)).containsExactly(ids.get(3));
		assertThat(fixture().status(ids.get(4))).isEqualTo(JobStatus.FAILED);
		assertThat(fixture().status(holder)).isEqualTo(JobStatus.QUEUED);
		assertThat(fixture().job(ids.get(0))).satisfies((job) -> {
			assertThat(job.status()).isEqualTo(JobStatus.QUEUED);
			assertThat(job.attempts()).isZero();
			assertThat(job.finishedAt()).isNull();
		});
		assertThat(store.retryAllFailed(null, null, 10)).isEmpty();
	}

}
