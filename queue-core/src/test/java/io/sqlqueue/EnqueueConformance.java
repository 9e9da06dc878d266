package io.sqlqueue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import io.sqlqueue.handler.HandlerDefinition;
import io.sqlqueue.internal.handler.MethodJobInvoker;
import io.sqlqueue.internal.store.Completion;
import io.sqlqueue.internal.store.Lease;
import io.sqlqueue.test.QueueFixture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Enqueueing on every database: a job is written with what it was given, runs, and keeps its
 * result; a unique key holds; an enqueue commits and rolls back with its caller's
 * transaction. {@link QueueConformanceTests} implements this.
 */
interface EnqueueConformance extends ConformanceSupport {

	// --- enqueue and run

	@Test
	default void enqueuedJobRunsAndStoresItsResult() {
		handler("echo", (payload, context) -> Map.of("echo", payload, "attempt", context.attempt()));
		fixture().startManager((s) -> s);
		long id = fixture().queue().enqueue("echo", Map.of("name", "Ada"));
		awaitStatus(id, JobStatus.SUCCEEDED);
		JobRecord job = fixture().job(id);
		assertThat(job.attempts()).isEqualTo(1);
		Map<?, ?> result = JSON.readValue(job.result(), Map.class);
		assertThat(result.get("attempt")).isEqualTo(1);
		assertThat(JSON.readValue((String) result.get("echo"), Map.class)).isEqualTo(Map.of("name", "Ada"));
		assertThat(job.startedAt()).isNotNull();
		assertThat(job.finishedAt()).isNotNull();
		assertThat(job.leaseExpiresAt()).isNull();
		// The token stays, so that a write whose answer was lost can tell it landed.
		assertThat(job.leaseToken()).isNotNull();
	}

	@Test
	default void typedPayloadIsDecodedForTheHandlerMethod() throws Exception {
		Greeter greeter = new Greeter();
		fixture().register(HandlerDefinition.of("greet", "default", new MethodJobInvoker(greeter,
				Greeter.class.getDeclaredMethod("greet", Greeting.class, JobContext.class), "greet",
				fixture().codec())));
		fixture().startManager((s) -> s);
		long id = fixture().queue().enqueue("greet", new Greeting("Grace", 2));
		awaitStatus(id, JobStatus.SUCCEEDED);
		assertThat(fixture().job(id).result()).isEqualTo("\"Hello Grace x2 (job " + id + ")\"");
	}

	@Test
	default void enqueueAllInsertsInOneBatchAndReturnsIdsInOrder() {
		List<Long> ids = fixture().queue()
			.enqueueAll(List.of(Job.of("a", 1), Job.of("b", 2).priority(5), Job.of("c", 3).queue("other")));
		assertThat(ids).hasSize(3).doesNotHaveDuplicates();
		assertThat(fixture().job(ids.get(0)).handler()).isEqualTo("a");
		assertThat(fixture().job(ids.get(1)).priority()).isEqualTo(5);
		assertThat(fixture().job(ids.get(2)).queue()).isEqualTo("other");
		assertThat(fixture().job(ids.get(0)).maxAttempts()).isEqualTo(QueueFixture.FAST_RETRIES.maxAttempts());
	}

	@Test
	default void enqueueAllStoresJobsWithoutOptionsAsItStoresThemBesideOthers() {
		// Alone, jobs with no key, delay, deadline or headers take a statement of their own where
		// the dialect has one (Dialect#insertAllBare); beside a delayed job, the statement for
		// every column. Both must write the same rows, in job order.
		List<Job> bare = List.of(Job.of("a", Map.of("n", 1)), Job.of("b", 2).priority(5).maxAttempts(7),
				Job.of("c", "three").queue("other").tags("t"));
		List<Long> alone = fixture().queue().enqueueAll(bare);
		List<Job> mixed = new ArrayList<>(bare);
		mixed.add(Job.of("d", 4).delay(Duration.ofHours(1)));
		List<Long> beside = fixture().queue().enqueueAll(mixed);
		assertThat(alone).isSorted().doesNotHaveDuplicates();
		for (int i = 0; i < bare.size(); i++) {
			JobRecord written = fixture().job(alone.get(i));
			assertThat(written).usingRecursiveComparison()
				.ignoringFields("id", "runAt", "createdAt", "updatedAt")
				.isEqualTo(fixture().job(beside.get(i)));
			// Due at once, on the database's clock.
			assertThat(written.runAt()).isEqualTo(written.createdAt());
			assertThat(written.status()).isEqualTo(JobStatus.QUEUED);
		}
		assertThat(fixture().job(alone.get(1)).maxAttempts()).isEqualTo(7);
		assertThat(fixture().job(alone.get(2)).tags()).containsExactly("t");
	}

	@Test
	default void delayedJobIsNotClaimedBeforeItIsDue() {
		long later = fixture().queue().enqueue(Job.of("work", null).delay(Duration.ofHours(1)));
		long future = fixture().queue().enqueue(Job.of("work", null).runAt(Instant.now().plusSeconds(3600)));
		long past = fixture().queue().enqueue(Job.of("work", null).runAt(Instant.now().minusSeconds(60)));
		assertThat(claim("default", 10, "work")).extracting(JobRecord::id).containsExactly(past);
		assertThat(fixture().status(later)).isEqualTo(JobStatus.QUEUED);
		assertThat(fixture().status(future)).isEqualTo(JobStatus.QUEUED);
	}

	@Test
	default void delayedJobRunsAfterItsDelayOnTheDatabaseClock() {
		handler("work", (payload, context) -> null);
		fixture().startManager((s) -> s);
		long id = fixture().queue().enqueue(Job.of("work", null).delay(Duration.ofMillis(700)));
		awaitStatus(id, JobStatus.SUCCEEDED);
		JobRecord job = fixture().job(id);
		assertThat(Duration.between(job.createdAt(), job.startedAt())).isGreaterThanOrEqualTo(Duration.ofMillis(700));
	}

	// --- unique keys and transactions

	@Test
	default void uniqueKeyRejectsADuplicateOfAnUnfinishedJobOnly() {
		long first = fixture().queue().enqueue(Job.of("work", 1).uniqueKey("report:2026-11-22"));
		assertThatThrownBy(() -> fixture().queue().enqueue(Job.of("work", 2).uniqueKey("report:2026-11-22")))
			.isInstanceOf(DuplicateJobException.class)
			.hasMessageContaining("report:2026-11-22");
		assertThat(fixture().count("unique_key = 'report:2026-11-22'")).isEqualTo(1);
		JobRecord claimed = claim("default", 1, "work").get(0);
		assertThatThrownBy(() -> fixture().queue().enqueue(Job.of("work", 3).uniqueKey("report:2026-11-22")))
			.isInstanceOf(DuplicateJobException.class);
		fixture().store().complete(List.of(new Completion(new Lease(first, claimed.leaseToken()), null)));
		long second = fixture().queue().enqueue(Job.of("work", 4).uniqueKey("report:2026-11-22"));
		assertThat(second).isNotEqualTo(first);
	}

	@Test
	default void enqueueAllWithADuplicateWritesNothing() {
		fixture().queue().enqueue(Job.of("work", 1).uniqueKey("k"));
		assertThatThrownBy(() -> fixture().queue()
			.enqueueAll(List.of(Job.of("work", 2), Job.of("work", 3).uniqueKey("k"), Job.of("work", 4))))
			.isInstanceOf(DuplicateJobException.class);
		assertThat(fixture().count("1 = 1")).isEqualTo(1);
	}

	@Test
	default void enqueueAllWithADuplicateInsideACallersTransactionWritesNoneOfItsJobs() {
		fixture().queue().enqueue(Job.of("work", 1).uniqueKey("k"));
		TransactionTemplate transaction = new TransactionTemplate(
				new DataSourceTransactionManager(isolatedDatabase().dataSource()));
		transaction.executeWithoutResult((status) -> {
			fixture().queue().enqueue("work", "before");
			assertThatThrownBy(() -> fixture().queue()
				.enqueueAll(List.of(Job.of("work", 2), Job.of("work", 3).uniqueKey("k"), Job.of("work", 4))))
				.isInstanceOf(DuplicateJobException.class);
			fixture().queue().enqueue("work", "after");
		});
		assertThat(fixture().count("1 = 1")).isEqualTo(3);
		assertThat(fixture().jdbc()
			.queryForList("SELECT payload FROM " + fixture().table() + " ORDER BY id", String.class))
			.map((payload) -> payload.replace(" ", ""))
			.containsExactly("1", "\"before\"", "\"after\"");
	}

	@Test
	default void enqueueRolledBackWithTheCallersTransactionLeavesNoJob() {
		TransactionTemplate transaction = new TransactionTemplate(
				new DataSourceTransactionManager(isolatedDatabase().dataSource()));
		assertThatThrownBy(() -> transaction.executeWithoutResult((status) -> {
			fixture().queue().enqueue("work", "rolled back");
			throw new IllegalStateException("caller fails");
		})).hasMessage("caller fails");
		assertThat(fixture().count("1 = 1")).isZero();
		Long id = transaction.execute((status) -> fixture().queue().enqueue("work", "committed"));
		assertThat(fixture().job(id).payload()).contains("committed");
	}

	@Test
	default void duplicateInsideACallersTransactionLeavesTheTransactionUsable() {
		fixture().queue().enqueue(Job.of("work", 1).uniqueKey("once"));
		TransactionTemplate transaction = new TransactionTemplate(
				new DataSourceTransactionManager(isolatedDatabase().dataSource()));
		transaction.executeWithoutResult((status) -> {
			assertThatThrownBy(() -> fixture().queue().enqueue(Job.of("work", 2).uniqueKey("once")))
				.isInstanceOf(DuplicateJobException.class);
			fixture().queue().enqueue("work", "after the duplicate");
		});
		assertThat(fixture().count("1 = 1")).isEqualTo(2);
	}

	@Test
	default void wakeUpAfterCommitOnlyForCommittedEnqueues() {
		List<Set<String>> woken = Collections.synchronizedList(new ArrayList<>());
		fixture().queue().addEnqueueListener(woken::add);
		TransactionTemplate transaction = new TransactionTemplate(
				new DataSourceTransactionManager(isolatedDatabase().dataSource()));
		transaction.executeWithoutResult((status) -> {
			fixture().queue().enqueue(Job.of("work", null).queue("mail"));
			assertThat(woken).isEmpty();
		});
		assertThat(woken).containsExactly(Set.of("mail"));
		transaction.executeWithoutResult((status) -> {
			fixture().queue().enqueue(Job.of("work", null).queue("reports"));
			status.setRollbackOnly();
		});
		assertThat(woken).containsExactly(Set.of("mail"));
	}

}
