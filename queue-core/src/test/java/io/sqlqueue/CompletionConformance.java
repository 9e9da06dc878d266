package io.sqlqueue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Test;

import io.sqlqueue.internal.manager.Manager;
import io.sqlqueue.internal.store.CompletedJobs;
import io.sqlqueue.internal.store.Completion;
import io.sqlqueue.internal.store.JobStore;
import io.sqlqueue.internal.store.Lease;
import io.sqlqueue.test.QueueFixture;
import io.sqlqueue.test.SwitchableDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * How an attempt's end is written, on every database: completions are recorded together,
 * a write the database refuses or whose answer was lost is resolved, and one that cannot be
 * written is tried again. (Rows a caller's transaction holds: {@link CompletionFlushConformance}.)
 * {@link QueueConformanceTests} implements this.
 */
interface CompletionConformance extends ConformanceSupport {

	@Test
	default void completionsAreRecordedTogetherAndFlushedAtStop() {
		handler("work", (payload, context) -> payload);
		Manager manager = fixture().startManager(
				(s) -> s.completionLinger(Duration.ofSeconds(5)).completionBatchSize(3).defaultConcurrency(1));
		List<Long> ids = fixture().queue().enqueueAll(List.of(Job.of("work", 1), Job.of("work", 2)));
		await().atMost(WAIT).until(() -> fixture().listener().events("started").size() == 2);
		assertThat(ids).allSatisfy((id) -> assertThat(fixture().status(id)).isEqualTo(JobStatus.RUNNING));
		long third = fixture().queue().enqueue("work", 3);
		awaitStatus(third, JobStatus.SUCCEEDED);
		assertThat(ids).allSatisfy((id) -> assertThat(fixture().status(id)).isEqualTo(JobStatus.SUCCEEDED));
		long fourth = fixture().queue().enqueue("work", 4);
		await().atMost(WAIT).until(() -> fixture().listener().events("started").size() == 4);
		assertThat(fixture().status(fourth)).isEqualTo(JobStatus.RUNNING);
		manager.stop();
		assertThat(fixture().status(fourth)).isEqualTo(JobStatus.SUCCEEDED);
		assertThat(fixture().job(fourth).result()).isEqualTo("\"4\"");
	}

	@Test
	default void completionThatCannotBeWrittenIsTriedAgain() {
		try (HikariDataSource pool = isolatedDatabase().newDataSource(8)) {
			SwitchableDataSource connection = new SwitchableDataSource(pool);
			handler("cuts", (payload, context) -> {
				connection.cut();
				return "done";
			});
			fixture().startInstance((s) -> s, connection);
			long id = fixture().queue().enqueue("cuts", null);
			await().atMost(WAIT).until(() -> connection.refusals() > 0);
			connection.restore();
			// No reaper runs here: only another try of the completion can finish the job.
			awaitStatus(id, JobStatus.SUCCEEDED);
			assertThat(fixture().job(id).attempts()).isEqualTo(1);
			assertThat(fixture().job(id).result()).isEqualTo("\"done\"");
		}
	}

	/**
	 * A row the database refuses (here a store that refuses one result, as PostgreSQL refuses
	 * what jsonb cannot hold) holds up no other job of its batch, and its own job is recorded
	 * as succeeded without the result: nothing runs again.
	 */
	@Test
	default void completionTheDatabaseRefusesIsRecordedAloneWithoutItsResult() {
		JobStore refusing = new JobStore(isolatedDatabase().dataSource(), isolatedDatabase().dialect(), isolatedDatabase().schema(),
				fixture().claimMethod()) {
			@Override
			public CompletedJobs completeUnlessHeld(List<Completion> completions) {
				if (completions.stream().anyMatch((completion) -> "\"poison\"".equals(completion.result()))) {
					throw new org.springframework.dao.DataIntegrityViolationException("poison refused (test)");
				}
				return super.completeUnlessHeld(completions);
			}
		};
		Map<Long, AtomicInteger> runs = new ConcurrentHashMap<>();
		handler("maybe", (payload, context) -> {
			runs.computeIfAbsent(context.jobId(), (id) -> new AtomicInteger()).incrementAndGet();
			return payload.contains("poison") ? "poison" : "fine";
		});
		List<Job> jobs = new ArrayList<>();
		for (int i = 0; i < 12; i++) {
			jobs.add(Job.of("maybe", (i == 5) ? "poison" : "ok"));
		}
		List<Long> ids = fixture().queue().enqueueAll(jobs);
		Manager manager = fixture().startManager(refusing,
				QueueFixture.fastSettings().defaultConcurrency(8).completionLinger(Duration.ofMillis(50)).build(), 16);
		await().atMost(WAIT).until(() -> fixture().count("status = 'SUCCEEDED'") == jobs.size());
		JobRecord poisoned = fixture().job(ids.get(5));
		assertThat(poisoned.result()).isNull();
		assertThat(poisoned.lastError()).startsWith("Result not stored: the database refused it")
			.contains("poison refused");
		for (int i = 0; i < ids.size(); i++) {
			if (i != 5) {
				assertThat(fixture().job(ids.get(i)).result()).isEqualTo("\"fine\"");
			}
		}
		assertThat(runs.values()).allSatisfy((count) -> assertThat(count).hasValue(1));
		assertThat(manager.leaseLosses()).isZero();
	}

	/**
	 * Writes that landed but whose answer was lost (a failover during the commit) are tried
	 * again; the try finds the row finished under this attempt's token and counts no lost
	 * lease.
	 */
	@Test
	default void writesWhoseAnswerWasLostAreResolvedNotCountedAsLostLeases() {
		AtomicBoolean completionAnswerLost = new AtomicBoolean(true);
		AtomicBoolean retryAnswerLost = new AtomicBoolean(true);
		JobStore losing = new JobStore(isolatedDatabase().dataSource(), isolatedDatabase().dialect(), isolatedDatabase().schema(),
				fixture().claimMethod()) {
			@Override
			public CompletedJobs completeUnlessHeld(List<Completion> completions) {
				CompletedJobs done = super.completeUnlessHeld(completions);
				if (completionAnswerLost.getAndSet(false)) {
					throw new org.springframework.transaction.TransactionSystemException("answer lost (test)");
				}
				return done;
			}

			@Override
			public boolean reschedule(Lease lease, String error, Duration delay) {
				boolean held = super.reschedule(lease, error, delay);
				if (retryAnswerLost.getAndSet(false)) {
					throw new org.springframework.dao.DataAccessResourceFailureException("answer lost (test)");
				}
				return held;
			}
		};
		AtomicInteger runs = new AtomicInteger();
		handler("flaky", (payload, context) -> {
			if (runs.incrementAndGet() == 1) {
				throw new IllegalStateException("first attempt fails");
			}
			return "second";
		});
		// A backoff longer than the write's next try, so the job is not claimed again in between.
		Manager manager = fixture().startManager(losing, QueueFixture.fastSettings()
			.retryPolicy(new io.sqlqueue.handler.RetryPolicy(3, Duration.ofSeconds(2), 2.0, Duration.ofSeconds(2), 0.0))
			.build(), 4);
		long id = fixture().queue().enqueue("flaky", null);
		awaitStatus(id, JobStatus.SUCCEEDED);
		await().atMost(WAIT).until(() -> fixture().listener().events("finished").size() == 2);
		assertThat(fixture().job(id).attempts()).isEqualTo(2);
		assertThat(fixture().job(id).result()).isEqualTo("\"second\"");
		assertThat(completionAnswerLost).isFalse();
		assertThat(retryAnswerLost).isFalse();
		assertThat(manager.leaseLosses()).isZero();
		assertThat(fixture().listener().events("lease lost")).isEmpty();
	}

}
