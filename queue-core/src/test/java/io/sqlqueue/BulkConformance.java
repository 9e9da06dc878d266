package io.sqlqueue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import io.sqlqueue.admin.BulkAction;
import io.sqlqueue.admin.BulkResult;
import io.sqlqueue.admin.JobFilter;
import io.sqlqueue.admin.QueueAdmin;
import io.sqlqueue.admin.Refusal;
import io.sqlqueue.admin.RefusedException;
import io.sqlqueue.internal.admin.DefaultQueueAdmin;
import io.sqlqueue.internal.manager.Manager;
import io.sqlqueue.internal.store.Lease;
import io.sqlqueue.test.QueueFixture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Bulk actions by filter on every database: counted first, walked in chunks, each job changed
 * as the one-job action changes it or skipped; refused without a filter, a no-op for a filter
 * that matches nothing; and a cancel of thousands of jobs while workers run loses none, runs
 * none twice and leaves none half-changed. {@link QueueConformanceTests} implements this.
 */
interface BulkConformance extends ConformanceSupport {

	private QueueAdmin admin(Manager manager) {
		return new DefaultQueueAdmin(fixture().queue(), fixture().store(), manager, null, null);
	}

	@Test
	default void aBulkActionWithoutAFilterIsRefusedAndChangesNothing() {
		long id = fixture().queue().enqueue("work", 1);
		QueueAdmin admin = admin(null);
		for (BulkAction action : BulkAction.values()) {
			assertThatExceptionOfType(RefusedException.class).isThrownBy(() -> admin.bulk(action, JobFilter.ALL))
				.satisfies((ex) -> assertThat(ex.refusal()).isEqualTo(Refusal.NO_FILTER))
				.withMessageContaining("needs a filter");
		}
		assertThat(fixture().status(id)).isEqualTo(JobStatus.QUEUED);
		BulkResult none = admin.bulk(BulkAction.CANCEL, JobFilter.builder().tag("matches-nothing").build());
		assertThat(none.done()).isFalse();
		assertThat(none.refusal()).isEqualTo(Refusal.NO_MATCHING_JOBS);
		assertThat(none.matched()).isZero();
		assertThat(fixture().status(id)).isEqualTo(JobStatus.QUEUED);
	}

	@Test
	default void cancelRetryAndDeleteEveryMatchingJobInChunksAfterACount() {
		QueueAdmin admin = admin(null);
		List<Job> jobs = new ArrayList<>();
		for (int i = 0; i < 1_100; i++) {
			jobs.add(Job.of("work", i).tags("campaign").meta("wave", (i < 600) ? "1" : "2"));
		}
		List<Long> ids = fixture().queue().enqueueAll(jobs);
		long other = fixture().queue().enqueue(Job.of("work", 0).tags("other"));
		JobFilter campaign = JobFilter.builder().tag("campaign").build();
		assertThat(admin.count(campaign)).isEqualTo(1_100);
		// Three chunks: 500, 500, 100.
		BulkResult cancelled = admin.bulk(BulkAction.CANCEL, JobFilter.builder().tag("campaign").build());
		assertThat(cancelled.done()).isTrue();
		assertThat(cancelled.matched()).isEqualTo(1_100);
		assertThat(cancelled.changed()).isEqualTo(1_100);
		assertThat(cancelled.skipped()).isZero();
		assertThat(cancelled.chunks()).isEqualTo(3);
		assertThat(fixture().count("status = 'CANCELLED'")).isEqualTo(1_100);
		assertThat(fixture().status(other)).isEqualTo(JobStatus.QUEUED);
		// Cancelled jobs are finished: a second cancel skips them all.
		BulkResult again = admin.bulk(BulkAction.CANCEL, campaign);
		assertThat(again.changed()).isZero();
		assertThat(again.skipped()).isEqualTo(1_100);
		assertThat(again.done()).isFalse();
		// Retry applies to FAILED jobs only: fail three of wave 2.
		JobFilter wave2 = JobFilter.builder().meta("wave", "2").build();
		fixture().queue().enqueueAll(List.of(Job.of("fails", 1).meta("wave", "2"), Job.of("fails", 2).meta("wave", "2"),
				Job.of("fails", 3).meta("wave", "2")));
		for (JobRecord running : claim("default", 3, "fails")) {
			fixture().store().fail(new Lease(running.id(), running.leaseToken()), "broken");
		}
		BulkResult retried = admin.bulk(BulkAction.RETRY, wave2);
		assertThat(retried.matched()).isEqualTo(503);
		assertThat(retried.changed()).isEqualTo(3);
		assertThat(retried.skipped()).isEqualTo(500);
		assertThat(fixture().count("handler = 'fails' AND status = 'QUEUED' AND attempts = 0")).isEqualTo(3);
		// Delete: finished jobs only; the retried ones are queued, so they stay.
		BulkResult deleted = admin.bulk(BulkAction.DELETE, wave2);
		assertThat(deleted.changed()).isEqualTo(500);
		assertThat(deleted.skipped()).isEqualTo(3);
		assertThat(fixture().queue().find(ids.get(700))).isEmpty();
		assertThat(fixture().queue().find(ids.get(0))).isPresent();
		assertThat(admin.count(wave2)).isEqualTo(3);
		assertThat(fixture().jdbc().queryForObject("SELECT COUNT(*) FROM " + table("queue_job_meta")
				+ " WHERE meta_value = '2'", Integer.class)).isEqualTo(3);
		assertThat(fixture().jdbc().queryForObject("SELECT COUNT(*) FROM " + table("queue_job_tag")
				+ " WHERE tag = 'campaign'", Integer.class)).isEqualTo(600);
	}

	/**
	 * A bulk action from code inside a transaction of the caller's that then rolls back: its
	 * chunks committed on their own as they went (no lock held until the caller ends), so the
	 * jobs stay cancelled, and its audit entry stays with them.
	 */
	@Test
	default void aBulkActionInACallersTransactionCommitsOnItsOwn() {
		List<Long> ids = fixture().queue()
			.enqueueAll(List.of(Job.of("work", 1).tags("wave"), Job.of("work", 2).tags("wave")));
		TransactionTemplate caller = new TransactionTemplate(
				new DataSourceTransactionManager(isolatedDatabase().dataSource()));
		caller.executeWithoutResult((status) -> {
			assertThat(fixture().count("status = 'QUEUED'")).isEqualTo(2);
			BulkResult cancelled = admin(null).bulk(BulkAction.CANCEL, JobFilter.builder().tag("wave").build());
			assertThat(cancelled.changed()).isEqualTo(2);
			status.setRollbackOnly();
		});
		for (long id : ids) {
			assertThat(fixture().status(id)).isEqualTo(JobStatus.CANCELLED);
		}
		assertThat(fixture().jdbc().queryForObject("SELECT COUNT(*) FROM " + table("queue_audit")
				+ " WHERE action = 'bulk-cancel'", Integer.class)).isEqualTo(1);
	}

	/**
	 * A cancel of every job of a wave while eight workers run them: each job either ran once
	 * and succeeded, or was cancelled (before it ran, or asked to stop while it ran); none is
	 * left queued or running, none ran twice, and the counts add up.
	 */
	@Test
	default void aBulkCancelWhileWorkersRunLosesNoJobAndRunsNoneTwice() {
		Map<Long, AtomicInteger> runs = new ConcurrentHashMap<>();
		handler("bulk.work", (payload, context) -> {
			runs.computeIfAbsent(context.jobId(), (id) -> new AtomicInteger()).incrementAndGet();
			Thread.sleep(50);
			return null;
		});
		int total = 1_000;
		List<Job> jobs = new ArrayList<>();
		for (int i = 0; i < total; i++) {
			jobs.add(Job.of("bulk.work", i).tags("wave"));
		}
		Manager manager = fixture().startManager(fixture().store(), QueueFixture.fastSettings().build(), 8);
		List<Long> ids = fixture().queue().enqueueAll(jobs);
		await().atMost(WAIT).until(() -> !runs.isEmpty());
		BulkResult result = admin(manager).bulk(BulkAction.CANCEL, JobFilter.builder().tag("wave").build());
		assertThat(result.matched()).isEqualTo(total);
		assertThat(result.changed() + result.skipped()).isEqualTo(total);
		await().atMost(SETTLE_WAIT)
			.until(() -> fixture().count("handler = 'bulk.work' AND status IN ('WAITING', 'QUEUED', 'RUNNING')") == 0);
		int succeeded = 0;
		int cancelledUnrun = 0;
		for (long id : ids) {
			JobRecord job = fixture().job(id);
			int ran = runs.getOrDefault(id, new AtomicInteger()).get();
			assertThat(ran).as("runs of job %d", id).isLessThanOrEqualTo(1);
			assertThat(job.status()).as("job %d", id).isIn(JobStatus.SUCCEEDED, JobStatus.CANCELLED);
			assertThat(job.finishedAt()).as("job %d", id).isNotNull();
			if (job.status() == JobStatus.SUCCEEDED) {
				assertThat(ran).as("runs of succeeded job %d", id).isEqualTo(1);
				succeeded++;
			}
			else if (ran == 0) {
				cancelledUnrun++;
			}
		}
		assertThat(cancelledUnrun).as("%s; %d succeeded", result, succeeded).isPositive().isLessThanOrEqualTo((int) result.changed());
		assertThat(succeeded + fixture().count("handler = 'bulk.work' AND status = 'CANCELLED'")).isEqualTo(total);
		manager.stop();
	}

}
