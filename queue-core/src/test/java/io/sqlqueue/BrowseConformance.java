package io.sqlqueue;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.sqlqueue.Batch;
import io.sqlqueue.BatchIds;
import io.sqlqueue.internal.store.Completion;
import io.sqlqueue.internal.store.JobBrowser;
import io.sqlqueue.admin.JobFilter;
import io.sqlqueue.admin.JobPage;
import io.sqlqueue.admin.JobSummary;
import io.sqlqueue.internal.store.Lease;
import io.sqlqueue.internal.store.QueueCount;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The reads of the dashboard and the metrics, on every database: counts by queue and state,
 * pages of jobs by keyset and filter, finished jobs per minute and the queued backlog on the
 * database's clock. {@link QueueConformanceTests} implements this.
 */
interface BrowseConformance extends ConformanceSupport {

	@Test
	default void countsByQueueReadTheMixOfStatesInOneQuery() {
		fixture().queue().enqueueAll(List.of(Job.of("work", 1), Job.of("work", 2), Job.of("work", 3),
				Job.of("work", 4).queue("mail"), Job.of("work", 5).queue("mail").delay(Duration.ofHours(1))));
		JobRecord running = claim("default", 1, "work").get(0);
		fixture().store().fail(new Lease(running.id(), running.leaseToken()), "broken");
		claim("default", 1, "work");
		await().pollDelay(Duration.ofMillis(20)).atMost(WAIT).until(() -> true);
		List<QueueCount> counts = fixture().store().countsByQueue();
		assertThat(counts).extracting((count) -> count.queue() + " " + count.status() + " " + count.jobs())
			.containsExactlyInAnyOrder("default FAILED 1", "default RUNNING 1", "default QUEUED 1", "mail QUEUED 2");
		QueueCount mail = counts.stream().filter((count) -> count.queue().equals("mail")).findFirst().orElseThrow();
		assertThat(mail.oldestDueAge()).isGreaterThan(Duration.ZERO).isLessThan(Duration.ofMinutes(5));
	}

	private JobBrowser browser() {
		assumeTrue(fixture().claimMethod() == isolatedDatabase().dialect().claimMethod(),
				"Browsing does not depend on the claim method; run with the database's own");
		return new JobBrowser(isolatedDatabase().dataSource(), isolatedDatabase().dialect(), isolatedDatabase().schema());
	}

	@Test
	default void browserPagesJobsNewestFirstByKeysetAndFilters() {
		JobBrowser browser = browser();
		List<Long> ids = fixture().queue()
			.enqueueAll(List.of(Job.of("work", 1), Job.of("work", 2).uniqueKey("order-7"), Job.of("other", 3),
					Job.of("work", 4).queue("mail").groupKey("customer-1"), Job.of("work", 5), Job.of("work", 6),
					Job.of("other", 7).queue("mail").groupKey("customer-1"), Job.of("work", 8)));
		JobRecord failed = claim("default", 1, "work").get(0);
		fixture().store().fail(new Lease(failed.id(), failed.leaseToken()), "java.lang.IllegalStateException: <b>boom</b>\n\tat x");
		fixture().queue().cancel(ids.get(7));

		JobPage newest = browser.olderThan(JobFilter.ALL, null, 3);
		assertThat(newest.jobs()).extracting(JobSummary::id).containsExactly(ids.get(7), ids.get(6), ids.get(5));
		assertThat(newest.newer()).isNull();
		JobPage second = browser.olderThan(JobFilter.ALL, newest.older(), 3);
		assertThat(second.jobs()).extracting(JobSummary::id).containsExactly(ids.get(4), ids.get(3), ids.get(2));
		JobPage last = browser.olderThan(JobFilter.ALL, second.older(), 3);
		assertThat(last.jobs()).extracting(JobSummary::id).containsExactly(ids.get(1), ids.get(0));
		assertThat(last.older()).isNull();
		assertThat(browser.newerThan(JobFilter.ALL, last.newer(), 3).jobs()).isEqualTo(second.jobs());
		JobPage backToNewest = browser.newerThan(JobFilter.ALL, second.newer(), 3);
		assertThat(backToNewest.jobs()).isEqualTo(newest.jobs());
		assertThat(backToNewest.newer()).isNull();
		assertThat(backToNewest.older()).isEqualTo(ids.get(5));

		assertThat(browser.olderThan(new JobFilter("mail", null, null, null), null, 10).jobs())
			.extracting(JobSummary::id).containsExactly(ids.get(6), ids.get(3));
		assertThat(browser.olderThan(new JobFilter(null, "other", null, null), null, 10).jobs())
			.extracting(JobSummary::id).containsExactly(ids.get(6), ids.get(2));
		assertThat(browser.olderThan(new JobFilter("default", "work", JobStatus.QUEUED, null), null, 10).jobs())
			.extracting(JobSummary::id).containsExactly(ids.get(5), ids.get(4), ids.get(1));
		assertThat(browser.olderThan(new JobFilter(null, null, JobStatus.CANCELLED, null), null, 10).jobs())
			.extracting(JobSummary::id).containsExactly(ids.get(7));
		assertThat(browser.olderThan(new JobFilter(null, null, null, "order-7"), null, 10).jobs())
			.extracting(JobSummary::id).containsExactly(ids.get(1));
		assertThat(browser.olderThan(new JobFilter("mail", null, null, "customer-1"), ids.get(6), 10).jobs())
			.extracting(JobSummary::id).containsExactly(ids.get(3));
		assertThat(browser.olderThan(new JobFilter(null, null, null, String.valueOf(ids.get(2))), null, 10).jobs())
			.extracting(JobSummary::id).containsExactly(ids.get(2));
		assertThat(browser.olderThan(new JobFilter(null, null, null, "'; DROP TABLE queue_job; --"), null, 10).jobs())
			.isEmpty();

		JobSummary failedLine = browser.olderThan(new JobFilter(null, null, JobStatus.FAILED, null), null, 10)
			.jobs().get(0);
		assertThat(failedLine.id()).isEqualTo(failed.id());
		assertThat(failedLine.errorHead()).startsWith("java.lang.IllegalStateException: <b>boom</b>");
		assertThat(failedLine.attempts()).isEqualTo(1);
		assertThat(failedLine.finishedAt()).isNotNull();
		assertThatThrownBy(() -> browser.olderThan(JobFilter.ALL, null, 0)).isInstanceOf(IllegalArgumentException.class);
	}

	@Test
	default void browserCountsFinishedJobsPerMinuteOnTheDatabaseClock() {
		JobBrowser browser = browser();
		List<Long> ids = fixture().queue()
			.enqueueAll(List.of(Job.of("work", 1), Job.of("work", 2), Job.of("work", 3), Job.of("work", 4).queue("mail"),
					Job.of("work", 5)));
		List<JobRecord> claimed = claim("default", 3, "work");
		fixture().store()
			.complete(claimed.subList(0, 2)
				.stream()
				.map((job) -> new Completion(new Lease(job.id(), job.leaseToken()), null))
				.toList());
		fixture().store().fail(new Lease(claimed.get(2).id(), claimed.get(2).leaseToken()), "broken");
		fixture().queue().cancel(ids.get(3));
		String finishedAgo = "UPDATE " + fixture().table() + " SET finished_at = "
				+ isolatedDatabase().dialect().nowPlusMillis() + " WHERE id = ?";
		fixture().jdbc().update(finishedAgo, -(4 * 60_000L + 30_000L), claimed.get(1).id());
		fixture().jdbc().update(finishedAgo, -(20 * 60_000L), claimed.get(0).id());
		assertThat(browser.finishedPerMinute(15))
			.extracting((count) -> count.queue() + " " + count.status() + " " + count.minutesAgo() + " " + count.jobs())
			.containsExactlyInAnyOrder("default SUCCEEDED 4 1", "default FAILED 0 1", "mail CANCELLED 0 1");
	}

	@Test
	default void browserPagesTheMembersOfABatch() {
		JobBrowser browser = browser();
		fixture().queue().enqueue(Job.of("work", 0));
		BatchIds batch = fixture().queue()
			.enqueue(Batch.of(List.of(Job.of("work", 1), Job.of("other", 2), Job.of("work", 3)))
				.callback(Job.of("done", null)));
		fixture().queue().enqueue(Job.of("work", 4));
		List<Long> members = batch.jobIds().subList(0, 3);
		JobRecord failed = claim("default", 10, "other").get(0);
		fixture().store().fail(new Lease(failed.id(), failed.leaseToken()), "broken");

		JobPage first = browser.olderThan(JobFilter.ALL.inBatch(batch.batchId()), null, 2);
		assertThat(first.jobs()).extracting(JobSummary::id).containsExactly(members.get(2), members.get(1));
		JobPage rest = browser.olderThan(JobFilter.ALL.inBatch(batch.batchId()), first.older(), 2);
		assertThat(rest.jobs()).extracting(JobSummary::id).containsExactly(members.get(0));
		assertThat(rest.older()).isNull();
		assertThat(browser.olderThan(new JobFilter(null, null, JobStatus.FAILED, null).inBatch(batch.batchId()), null, 10)
			.jobs()).extracting(JobSummary::id).containsExactly(failed.id());
		assertThat(browser.olderThan(JobFilter.ALL.inBatch(batch.batchId() + 1000), null, 10).jobs()).isEmpty();
	}

	@Test
	default void browserSplitsQueuedJobsIntoDueDelayedAndBackingOffOnTheDatabaseClock() {
		JobBrowser browser = browser();
		fixture().queue()
			.enqueueAll(List.of(Job.of("work", 1), Job.of("work", 2), Job.of("work", 3).delay(Duration.ofHours(1)),
					Job.of("work", 4).queue("mail"), Job.of("work", 5).queue("mail")));
		JobRecord retried = claim("mail", 1, "work").get(0);
		fixture().store().reschedule(new Lease(retried.id(), retried.leaseToken()), "flaky", Duration.ofHours(1));
		JobRecord running = claim("default", 1, "work").get(0);
		assertThat(running.status()).isEqualTo(JobStatus.RUNNING);
		// A row made due a second ago by the database's clock, not this JVM's, counts as due.
		long delayedId = fixture().queue().enqueue(Job.of("work", 6).delay(Duration.ofHours(1)));
		fixture().jdbc()
			.update("UPDATE " + fixture().table() + " SET run_at = " + isolatedDatabase().dialect().nowPlusMillis()
					+ " WHERE id = ?", -1_000L, delayedId);

		assertThat(browser.queuedByQueue())
			.extracting((count) -> count.queue() + " " + count.due() + " " + count.delayed() + " " + count.backingOff())
			.containsExactlyInAnyOrder("default 2 1 0", "mail 1 0 1");
	}


	/**
	 * A job parked on a durable sleep or a wait for a signal counts as parked, not as delayed
	 * (a park spends no attempt) nor as backing off; the parked filter finds it and its line
	 * says so, with its tags. A snooze leaves no record and is no park; a signal that wakes the
	 * job makes it due.
	 */
	@Test
	default void browserTellsParkedJobsFromDelayedAndBackingOffAndFindsThem() {
		JobBrowser browser = browser();
		long sleeping = fixture().queue().enqueue(Job.of("work", 1).tags("vip", "a-tag"));
		JobRecord run = claim("default", 1, "work").get(0);
		fixture().store().steps().recordSleep(sleeping, "1", Duration.ofHours(1).toMillis());
		assertThat(fixture().store().park(new Lease(run.id(), run.leaseToken()), "sleep", "1", Duration.ZERO)).isTrue();
		long waiting = fixture().queue().enqueue(Job.of("work", 2));
		run = claim("default", 1, "work").get(0);
		fixture().store().reschedule(new Lease(run.id(), run.leaseToken()), "flaky", Duration.ZERO);
		run = claim("default", 1, "work").get(0);
		assertThat(run.id()).isEqualTo(waiting);
		fixture().store().steps().recordSignalWait(waiting, "approved", Duration.ofHours(1).toMillis());
		assertThat(fixture().store().park(new Lease(run.id(), run.leaseToken()), "signal", "approved", Duration.ZERO))
			.isTrue();
		long snoozed = fixture().queue().enqueue(Job.of("work", 3));
		run = claim("default", 1, "work").get(0);
		assertThat(fixture().store().park(new Lease(run.id(), run.leaseToken()), null, null, Duration.ofHours(1)))
			.isTrue();
		long delayed = fixture().queue().enqueue(Job.of("work", 4).delay(Duration.ofHours(1)));

		assertThat(browser.queuedByQueue()).extracting((count) -> count.queue() + " " + count.due() + " "
				+ count.delayed() + " " + count.backingOff() + " " + count.parked())
			.containsExactly("default 0 2 0 2");
		JobFilter parked = JobFilter.builder().parked(true).build();
		assertThat(browser.olderThan(parked, null, 10).jobs()).extracting(JobSummary::id)
			.containsExactly(waiting, sleeping);
		assertThat(browser.count(parked)).isEqualTo(2);
		List<JobSummary> all = browser.olderThan(JobFilter.ALL, null, 10).jobs();
		assertThat(all).extracting((job) -> job.id() + " " + job.parked() + " " + job.tags())
			.containsExactly(delayed + " false []", snoozed + " false []", waiting + " true []",
					sleeping + " true [a-tag, vip]");

		fixture().queue().signal(waiting, "approved", "yes");
		assertThat(browser.queuedByQueue()).extracting((count) -> count.queue() + " " + count.due() + " "
				+ count.delayed() + " " + count.backingOff() + " " + count.parked())
			.containsExactly("default 1 2 0 1");
		assertThat(browser.olderThan(parked, null, 10).jobs()).extracting(JobSummary::id).containsExactly(sleeping);
	}

}
