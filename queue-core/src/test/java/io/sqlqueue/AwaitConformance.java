package io.sqlqueue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Awaiting a job's end on every database: the final state with its result decoded or its
 * error, a bounded wait, and jobs that finish on another instance.
 * {@link QueueConformanceTests} implements this.
 */
interface AwaitConformance extends ConformanceSupport {

	@Test
	default void awaitReturnsTheFinalStateWithTheResultDecodedOrTheError() throws Exception {
		handler("greet", (payload, context) -> new Greeting("Ada", 2));
		handler("broken", (payload, context) -> {
			throw new IllegalStateException("printer on fire");
		});
		fixture().startManager((s) -> s);
		long greeted = fixture().queue().enqueue("greet", null);
		long broken = fixture().queue().enqueue(Job.of("broken", null).maxAttempts(1));
		JobResult success = fixture().queue().await(greeted, WAIT);
		assertThat(success.status()).isEqualTo(JobStatus.SUCCEEDED);
		assertThat(success.result(Greeting.class)).isEqualTo(new Greeting("Ada", 2));
		assertThat(success.error()).isNull();
		JobResult failure = fixture().queue().whenFinished(broken).get(30, TimeUnit.SECONDS);
		assertThat(failure.status()).isEqualTo(JobStatus.FAILED);
		assertThat(failure.error()).contains("IllegalStateException").contains("printer on fire");
		assertThat(failure.result(Greeting.class)).isNull();
		assertThatThrownBy(() -> success.result(Integer.class)).isInstanceOf(IllegalArgumentException.class)
			.hasMessageContaining("The result of job " + greeted + " cannot be decoded as java.lang.Integer");
		// A finished job is answered at once, as stored.
		assertThat(fixture().queue().await(greeted, Duration.ofSeconds(5)).job()).isEqualTo(success.job());
	}

	@Test
	default void awaitTimesOutLeavingTheJobAsItIsAndAnUnknownJobIsAnError() {
		long waiting = fixture().queue().enqueue("nobody.handles.this", null);
		assertThatThrownBy(() -> fixture().queue().await(waiting, Duration.ofMillis(300)))
			.isInstanceOf(AwaitTimeoutException.class)
			.hasMessage("Job " + waiting + " did not finish within PT0.3S");
		assertThat(fixture().status(waiting)).isEqualTo(JobStatus.QUEUED);
		assertThatThrownBy(() -> fixture().queue().await(waiting + 1000, WAIT))
			.isInstanceOf(NoSuchJobException.class)
			.hasMessageContaining("No job " + (waiting + 1000));
	}

	@Test
	default void awaitingAJobInsideTheTransactionThatEnqueuedItIsAClearError() throws Exception {
		handler("work", (payload, context) -> "done");
		fixture().startManager((s) -> s);
		long committed = fixture().queue().enqueue("work", null);
		JobResult done = fixture().queue().await(committed, WAIT);
		TransactionTemplate transaction = new TransactionTemplate(
				new DataSourceTransactionManager(isolatedDatabase().dataSource()));
		long enqueued = transaction.execute((status) -> {
			long id = fixture().queue().enqueue("work", null);
			assertThatThrownBy(() -> fixture().queue().await(id, WAIT)).isInstanceOf(IllegalStateException.class)
				.hasMessageContaining("Job " + id + " was enqueued in the current transaction, which has not committed")
				.hasMessageContaining("would wait forever");
			// A job the transaction did not enqueue may be awaited in it.
			assertThat(fixture().queue().whenFinished(committed).join().job()).isEqualTo(done.job());
			return id;
		});
		assertThat(fixture().queue().await(enqueued, WAIT).result(String.class)).isEqualTo("done");
	}

	@Test
	default void waitersOnAnotherInstanceSeeJobsFinishThere() throws Exception {
		handler("double", (payload, context) -> Integer.parseInt(payload) * 2);
		try (HikariDataSource running = isolatedDatabase().newDataSource(4);
				HikariDataSource awaiting = isolatedDatabase().newDataSource(2)) {
			fixture().startInstance((s) -> s, running);
			JobQueue elsewhere = fixture().otherInstanceQueue(awaiting);
			List<Long> ids = elsewhere.enqueueAll(List.of(Job.of("double", 1), Job.of("double", 2),
					Job.of("double", 3), Job.of("double", 4), Job.of("double", 5)));
			List<CompletableFuture<JobResult>> results = ids.stream().map(elsewhere::whenFinished).toList();
			CompletableFuture.allOf(results.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
			assertThat(results).extracting((result) -> result.join().result(Integer.class))
				.containsExactly(2, 4, 6, 8, 10);
		}
	}

}
