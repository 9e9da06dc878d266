package io.sqlqueue;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Test;

import io.sqlqueue.internal.manager.Manager;
import io.sqlqueue.internal.store.Completion;
import io.sqlqueue.internal.store.JobStore;
import io.sqlqueue.internal.store.Lease;
import io.sqlqueue.test.QueueFixture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Transactional handlers on every database (exactly-once effects for database work): the
 * handler's writes commit with its job's completion, or not at all.
 * {@link QueueConformanceTests} implements this.
 */
interface TransactionalHandlerConformance extends ConformanceSupport {

	@Test
	default void transactionalHandlerWritesCommitWithItsCompletion() {
		fixture().jdbc().execute("CREATE TABLE effect (job_id BIGINT NOT NULL, attempt INT NOT NULL)");
		transactionalHandler("pay", (payload, context) -> {
			fixture().jdbc().update("INSERT INTO effect (job_id, attempt) VALUES (?, ?)", context.jobId(),
					context.attempt());
			if (context.attempt() == 1) {
				throw new IllegalStateException("first attempt fails after writing");
			}
			return "paid";
		});
		fixture().startManager((s) -> s);
		long id = fixture().queue().enqueue("pay", null);
		awaitStatus(id, JobStatus.SUCCEEDED);
		assertThat(fixture().job(id).result()).isEqualTo("\"paid\"");
		assertThat(fixture().jdbc().queryForList("SELECT attempt FROM effect WHERE job_id = ?", Integer.class, id))
			.containsExactly(2);
	}

	/**
	 * The transaction of a transactional handler that returned may still fail (a deadlock
	 * while its end settles dependents, a connection lost at commit): that attempt is recorded
	 * as failed with the real error and retried by the retry policy, at once rather than after
	 * its lease, and counts as no crash and no lost lease.
	 */
	@Test
	default void transactionalHandlerWhoseCompletionFailsIsRetriedNotCountedAsACrash() {
		fixture().jdbc().execute("CREATE TABLE effect (job_id BIGINT NOT NULL, attempt INT NOT NULL)");
		AtomicBoolean failed = new AtomicBoolean();
		JobStore store = new JobStore(isolatedDatabase().dataSource(), isolatedDatabase().dialect(), isolatedDatabase().schema(),
				fixture().claimMethod()) {
			@Override
			public boolean completeWhileLeased(Completion completion) {
				boolean held = super.completeWhileLeased(completion);
				if (failed.compareAndSet(false, true)) {
					throw new org.springframework.dao.CannotAcquireLockException("Deadlock while settling (test)");
				}
				return held;
			}
		};
		transactionalHandler("pay", (payload, context) -> {
			fixture().jdbc().update("INSERT INTO effect (job_id, attempt) VALUES (?, ?)", context.jobId(),
					context.attempt());
			return "paid";
		});
		Manager manager = fixture().startManager(store, QueueFixture.fastSettings().build(), 4);
		long id = fixture().queue().enqueue("pay", null);
		// Well within the 30 s lease: no reaper is needed to run it again.
		await().atMost(Duration.ofSeconds(10)).until(() -> fixture().status(id) == JobStatus.SUCCEEDED);
		JobRecord job = fixture().job(id);
		assertThat(job.attempts()).isEqualTo(2);
		assertThat(job.crashes()).isZero();
		assertThat(job.lastError()).contains("Deadlock while settling (test)");
		assertThat(manager.leaseLosses()).isZero();
		assertThat(fixture().jdbc().queryForList("SELECT attempt FROM effect WHERE job_id = ?", Integer.class, id))
			.containsExactly(2);
	}

	/**
	 * The connection is lost as a transactional handler's transaction commits: the commit
	 * landed, but its answer was lost, and so was the look-up of the row that followed. The
	 * failure write then finds the row finished under the attempt's token: the success landed,
	 * which is neither a lost lease nor a failure (seen in the fault suite, whose terminated
	 * connections counted it as a lost lease).
	 */
	@Test
	default void transactionalSuccessWhoseCommitAnswerAndLookUpWereLostIsASuccess() {
		AtomicBoolean answerLost = new AtomicBoolean();
		AtomicBoolean lookUpLost = new AtomicBoolean();
		JobStore store = new JobStore(isolatedDatabase().dataSource(), isolatedDatabase().dialect(), isolatedDatabase().schema(),
				fixture().claimMethod()) {
			@Override
			public <T> T inTransaction(java.util.function.Supplier<T> work) {
				T result = super.inTransaction(work);
				if (answerLost.compareAndSet(false, true)) {
					throw new org.springframework.dao.DataAccessResourceFailureException("Connection lost at commit (test)");
				}
				return result;
			}

			@Override
			public Set<Lease> finishedUnder(java.util.Collection<Lease> leases) {
				if (lookUpLost.compareAndSet(false, true)) {
					throw new org.springframework.dao.DataAccessResourceFailureException("Connection lost (test)");
				}
				return super.finishedUnder(leases);
			}
		};
		AtomicInteger runs = new AtomicInteger();
		transactionalHandler("pay", (payload, context) -> {
			runs.incrementAndGet();
			return "paid";
		});
		Manager manager = fixture().startManager(store, QueueFixture.fastSettings().build(), 4);
		long id = fixture().queue().enqueue("pay", null);
		await().atMost(WAIT).until(() -> fixture().status(id) == JobStatus.SUCCEEDED && answerLost.get());
		// The attempt's end is told once its failure write found what had landed.
		await().atMost(WAIT).until(() -> !fixture().listener().events("finished pay").isEmpty()
				|| !fixture().listener().events("lease lost pay").isEmpty());
		assertThat(fixture().listener().events("lease lost pay")).isEmpty();
		assertThat(fixture().listener().events("finished pay")).containsExactly("finished pay succeeded");
		assertThat(manager.leaseLosses()).isZero();
		assertThat(runs).hasValue(1);
		assertThat(fixture().job(id).attempts()).isEqualTo(1);
	}

	@Test
	default void transactionalHandlerWhoseLeaseWasLostRollsItsWritesBack() {
		fixture().jdbc().execute("CREATE TABLE effect (job_id BIGINT NOT NULL, attempt INT NOT NULL)");
		try (HikariDataSource other = isolatedDatabase().newDataSource(2)) {
			transactionalHandler("pay", (payload, context) -> {
				// While the handler runs, the job is handed to another worker (as after a reap and
				// a new claim); before the handler's own write, as SQLite's single writer allows.
				new org.springframework.jdbc.core.JdbcTemplate(other).update(
						"UPDATE " + fixture().table() + " SET lease_token = lease_token + 1 WHERE id = ?",
						context.jobId());
				fixture().jdbc().update("INSERT INTO effect (job_id, attempt) VALUES (?, ?)", context.jobId(),
						context.attempt());
				return "paid";
			});
			Manager manager = fixture().startManager((s) -> s);
			long id = fixture().queue().enqueue("pay", null);
			await().atMost(WAIT).until(() -> manager.leaseLosses() == 1);
			assertThat(fixture().jdbc().queryForObject("SELECT COUNT(*) FROM effect", Integer.class)).isZero();
			assertThat(fixture().status(id)).isEqualTo(JobStatus.RUNNING);
			assertThat(fixture().job(id).result()).isNull();
			manager.stop();
		}
	}

}
