package io.sqlqueue;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import io.sqlqueue.handler.HandlerDefinition;
import io.sqlqueue.handler.RetryPolicy;
import io.sqlqueue.internal.manager.JobRunner;
import io.sqlqueue.observation.JobObservations;
import io.sqlqueue.test.QueueFixture;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The test kit's runner on every database: jobs run on the caller's thread through the same
 * fenced writes as the Manager's. {@link QueueConformanceTests} implements this.
 */
interface JobRunnerConformance extends ConformanceSupport {

	@Test
	default void runnerRunsJobsOnTheCallersThreadThroughTheFencedWrites() {
		String caller = Thread.currentThread().getName();
		AtomicInteger flakyCalls = new AtomicInteger();
		handler("ok", (payload, context) -> Thread.currentThread().getName());
		fixture().register(new HandlerDefinition("flaky", "default", 2, null, Set.of(), (payload, context) -> {
			if (flakyCalls.incrementAndGet() < 3) {
				throw new IllegalStateException("flaky " + flakyCalls.get());
			}
			return "recovered";
		}, "flaky"));
		long ok = fixture().queue().enqueue("ok", 1);
		long flaky = fixture().queue().enqueue("flaky", 2);
		long delayed = fixture().queue().enqueue(Job.of("ok", 3).delay(Duration.ofHours(1)));
		JobRunner runner = new JobRunner(fixture().store(), fixture().handlers(), fixture().codec(),
				QueueFixture.fastSettings().retryPolicy(new RetryPolicy(2, Duration.ofHours(1), 2.0, Duration.ofHours(2), 0))
					.build(),
				fixture().listener(), JobObservations.NONE);

		List<JobRunner.Ran> first = runner.runDue("default", 10);
		assertThat(first).extracting((ran) -> ran.job().id(), JobRunner.Ran::outcome)
			.containsExactlyInAnyOrder(org.assertj.core.groups.Tuple.tuple(ok, JobOutcome.SUCCEEDED),
					org.assertj.core.groups.Tuple.tuple(flaky, JobOutcome.RETRIED));
		assertThat(fixture().job(ok).result()).isEqualTo(JSON.writeValueAsString(caller));
		JobRecord retried = fixture().job(flaky);
		assertThat(retried.status()).isEqualTo(JobStatus.QUEUED);
		assertThat(retried.runAt()).isAfter(retried.updatedAt().plusSeconds(1800));
		assertThat(runner.runDue("default", 10)).as("nothing due").isEmpty();

		assertThat(fixture().store().makeDue(List.of("ok", "flaky"))).isEqualTo(2);
		assertThat(runner.runDue("default", 10)).extracting((ran) -> ran.job().id(), JobRunner.Ran::outcome)
			.containsExactlyInAnyOrder(org.assertj.core.groups.Tuple.tuple(delayed, JobOutcome.SUCCEEDED),
					org.assertj.core.groups.Tuple.tuple(flaky, JobOutcome.FAILED));
		assertThat(fixture().job(flaky).lastError()).contains("flaky 2");

		long later = fixture().queue().enqueue(Job.of("ok", 4).delay(Duration.ofHours(1)));
		assertThat(runner.run(later)).hasValueSatisfying((ran) -> {
			assertThat(ran.outcome()).isEqualTo(JobOutcome.SUCCEEDED);
			assertThat(ran.job().attempts()).isEqualTo(1);
		});
		assertThat(runner.run(later)).as("finished: not run again").isEmpty();
		assertThat(fixture().store().findByHandler("ok", JobStatus.SUCCEEDED, 10)).extracting(JobRecord::id)
			.containsExactly(ok, delayed, later);
		assertThat(fixture().listener().events()).contains("finished ok succeeded", "finished flaky retried",
				"finished flaky failed");
	}

}
