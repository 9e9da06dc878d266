package io.sqlqueue.admin;

import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import io.sqlqueue.Job;
import io.sqlqueue.JobListener;
import io.sqlqueue.JobQueue;
import io.sqlqueue.JobRecord;
import io.sqlqueue.JobStatus;
import io.sqlqueue.PayloadCodec;
import io.sqlqueue.flow.Limit;
import io.sqlqueue.flow.QueueLimits;
import io.sqlqueue.internal.admin.DefaultQueueAdmin;
import io.sqlqueue.internal.schedule.DefaultSchedules;
import io.sqlqueue.internal.store.ClaimRequest;
import io.sqlqueue.internal.store.Lease;
import io.sqlqueue.internal.store.ScheduleStore;
import io.sqlqueue.schedule.Recurrence;
import io.sqlqueue.schedule.ScheduleDefinition;
import io.sqlqueue.schedule.Schedules;
import io.sqlqueue.test.QueueFixture;
import io.sqlqueue.test.TestDatabase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The operator actions of {@link QueueAdmin} on a real database, each refusal with its one
 * message. A subclass names the database.
 */
abstract class QueueAdminConformance {

	private TestDatabase.Isolated database;

	private QueueFixture fixture;

	private Schedules schedules;

	private QueueAdmin admin;

	protected abstract TestDatabase database();

	@BeforeEach
	void setUp() {
		this.database = database().isolated();
		this.fixture = new QueueFixture(this.database, this.database.dialect().claimMethod(),
				new PayloadCodec(JsonMapper.builder().build(), 4096));
		this.schedules = new DefaultSchedules(new ScheduleStore(this.database.dataSource(), this.database.dialect(),
				this.database.schema()), this.fixture.queue(), this.fixture.handlers(), JobListener.NONE);
		this.admin = new DefaultQueueAdmin(this.fixture.queue(), this.fixture.store(), null, this.schedules,
				this.fixture.flowControl());
	}

	@AfterEach
	void tearDown() throws Exception {
		if (this.fixture != null) {
			this.fixture.close();
		}
		if (this.database != null) {
			this.database.close();
		}
	}

	// --- one job

	@Test
	void retriesAFailedJobWithAFreshSetOfAttempts() {
		long id = queue().enqueue("report.build", null);
		fail(JobQueue.DEFAULT_QUEUE, "report.build");
		AdminResult retried = this.admin.retry(id);
		assertThat(retried).isEqualTo(new AdminResult(true, null,
				"Job " + id + " is queued again with a fresh set of attempts", JobStatus.QUEUED, List.of(id)));
		assertThat(queue().find(id)).map(JobRecord::attempts).hasValue(0);
	}

	@Test
	void refusesToRetryAJobThatIsNotFailed() {
		long id = queue().enqueue("report.build", null);
		assertThat(this.admin.retry(id)).isEqualTo(new AdminResult(false, Refusal.NOT_FAILED,
				"Job " + id + " is QUEUED; only a FAILED job can be retried", JobStatus.QUEUED, List.of()));
		assertThat(this.fixture.status(id)).isEqualTo(JobStatus.QUEUED);
	}

	@Test
	void refusesToRetryAFailedJobWhoseUniqueKeyAnUnfinishedJobHolds() {
		long failed = queue().enqueue(Job.of("report.build", null).uniqueKey("report:2026-11"));
		fail(JobQueue.DEFAULT_QUEUE, "report.build");
		queue().enqueue(Job.of("report.build", null).uniqueKey("report:2026-11"));
		assertThat(this.admin.retry(failed)).isEqualTo(new AdminResult(false, Refusal.UNIQUE_KEY_TAKEN,
				"Job " + failed + " cannot be retried: An unfinished job with unique key 'report:2026-11' already exists",
				JobStatus.FAILED, List.of()));
	}

	/**
	 * On PostgreSQL the refused update fails its statement: without a savepoint the caller's
	 * transaction would be aborted, and neither its own writes nor the refusal's message could
	 * be had.
	 */
	@Test
	void aRetryRefusedForItsUniqueKeyLeavesTheCallersTransactionUsable() {
		long failed = queue().enqueue(Job.of("report.build", null).uniqueKey("report:2026-12"));
		fail(JobQueue.DEFAULT_QUEUE, "report.build");
		queue().enqueue(Job.of("report.build", null).uniqueKey("report:2026-12"));
		TransactionTemplate caller = new TransactionTemplate(
				new DataSourceTransactionManager(this.database.dataSource()));
		long enqueuedInIt = caller.execute((status) -> {
			long before = queue().enqueue("report.build", 1);
			assertThat(this.admin.retry(failed).refusal()).isEqualTo(Refusal.UNIQUE_KEY_TAKEN);
			assertThat(queue().find(before)).map(JobRecord::status).hasValue(JobStatus.QUEUED);
			return before;
		});
		assertThat(this.fixture.status(enqueuedInIt)).isEqualTo(JobStatus.QUEUED);
		assertThat(this.fixture.status(failed)).isEqualTo(JobStatus.FAILED);
	}

	@Test
	void refusesAnActionOnAJobThatDoesNotExist() {
		long missing = queue().enqueue("report.build", null) + 1000;
		AdminResult none = new AdminResult(false, Refusal.NO_SUCH_JOB, "No job " + missing, null, List.of());
		assertThat(this.admin.retry(missing)).isEqualTo(none);
		assertThat(this.admin.cancel(missing)).isEqualTo(none);
	}

	@Test
	void cancelsAQueuedJobAtOnce() {
		long id = queue().enqueue(Job.of("mail.send", null).delay(Duration.ofHours(1)));
		assertThat(this.admin.cancel(id)).isEqualTo(
				new AdminResult(true, null, "Job " + id + " is cancelled", JobStatus.CANCELLED, List.of(id)));
	}

	@Test
	void asksTheInstanceRunningAJobToStopIt() {
		long id = queue().enqueue("mail.send", null);
		assertThat(claim(JobQueue.DEFAULT_QUEUE, "mail.send")).extracting(JobRecord::id).containsExactly(id);
		assertThat(this.admin.cancel(id)).isEqualTo(new AdminResult(true, null,
				"Job " + id + " is running: its cancel is asked for, and the instance that runs it stops it",
				JobStatus.RUNNING, List.of(id)));
		assertThat(queue().find(id).orElseThrow().cancelRequestedAt()).isNotNull();
	}

	@Test
	void refusesToCancelAFinishedJob() {
		long id = queue().enqueue("report.build", null);
		fail(JobQueue.DEFAULT_QUEUE, "report.build");
		assertThat(this.admin.cancel(id)).isEqualTo(new AdminResult(false, Refusal.NOT_CANCELLABLE,
				"Job " + id + " is FAILED; only a WAITING, QUEUED or RUNNING job can be cancelled", JobStatus.FAILED,
				List.of()));
	}

	// --- the failed jobs of a queue or handler

	@Test
	void retriesTheFailedJobsOfAQueueOrAHandlerOldestFirst() {
		List<Long> ids = queue().enqueueAll(List.of(Job.of("mail.send", 1).queue("mail"),
				Job.of("mail.send", 2).queue("mail"), Job.of("mail.digest", 3).queue("mail"),
				Job.of("report.build", 4).queue("reports")));
		fail("mail", "mail.send", "mail.digest");
		fail("reports", "report.build");

		assertThat(this.admin.retryFailed(null, "mail.digest")).isEqualTo(new AdminResult(true, null,
				"1 failed job of handler mail.digest queued again", null, List.of(ids.get(2))));
		assertThat(this.admin.retryFailed("mail", null, 1).ids()).containsExactly(ids.get(0));
		assertThat(this.admin.retryFailed("mail", "mail.send").message())
			.isEqualTo("1 failed job of queue mail of handler mail.send queued again");
		assertThat(this.fixture.status(ids.get(3))).isEqualTo(JobStatus.FAILED);
		assertThat(this.admin.retryFailed(null, null)).isEqualTo(
				new AdminResult(true, null, "1 failed job queued again", null, List.of(ids.get(3))));
		assertThat(this.admin.retryFailed("mail", null)).isEqualTo(new AdminResult(false, Refusal.NO_FAILED_JOBS,
				"No failed jobs of queue mail to retry", null, List.of()));
		assertThat(this.admin.retryFailed(null, null).message()).isEqualTo("No failed jobs to retry");
	}

	@Test
	void retriesAtMostMaxBulkFailedJobsAtATime() {
		int total = QueueAdmin.MAX_BULK + 1;
		List<Long> ids = queue().enqueueAll(
				IntStream.range(0, total).mapToObj((i) -> Job.of("bulk", i).queue("bulk")).toList());
		assertThat(this.fixture.jdbc().update("UPDATE " + this.fixture.table()
				+ " SET status = 'FAILED', finished_at = CURRENT_TIMESTAMP WHERE queue = 'bulk'")).isEqualTo(total);

		AdminResult first = this.admin.retryFailed("bulk", null);
		assertThat(first.ids()).isEqualTo(ids.subList(0, QueueAdmin.MAX_BULK));
		assertThat(first.message()).isEqualTo("1000 failed jobs of queue bulk queued again");
		assertThat(this.admin.retryFailed("bulk", null).ids()).containsExactly(ids.get(QueueAdmin.MAX_BULK));
	}

	@Test
	void refusesABulkRetryOfFewerThanOneOrMoreThanMaxBulkJobs() {
		long id = queue().enqueue("report.build", null);
		fail(JobQueue.DEFAULT_QUEUE, "report.build");
		for (int limit : new int[] { 0, -1, QueueAdmin.MAX_BULK + 1 }) {
			assertThatExceptionOfType(RefusedException.class)
				.isThrownBy(() -> this.admin.retryFailed(null, null, limit))
				.withMessage("The limit must be 1 to 1000, not " + limit)
				.satisfies((ex) -> assertThat(ex.refusal()).isEqualTo(Refusal.BULK_LIMIT));
		}
		assertThat(this.fixture.status(id)).isEqualTo(JobStatus.FAILED);
		assertThat(this.admin.retryFailed(null, null, QueueAdmin.MAX_BULK).ids()).containsExactly(id);
	}

	// --- schedules

	@Test
	void triggersPausesAndResumesASchedule() {
		this.schedules.create(ScheduleDefinition.of("nightly", "report.build", Recurrence.cron("0 0 2 * * *", "UTC"))
			.withQueue("reports")
			.withMaxAttempts(3));
		AdminResult triggered = this.admin.triggerSchedule("nightly");
		assertThat(triggered.done()).isTrue();
		long jobId = triggered.ids().get(0);
		assertThat(triggered).isEqualTo(new AdminResult(true, null, "Schedule 'nightly' fired job " + jobId,
				JobStatus.QUEUED, List.of(jobId)));
		assertThat(queue().find(jobId).orElseThrow().queue()).isEqualTo("reports");

		assertThat(this.admin.pauseSchedule("nightly"))
			.isEqualTo(new AdminResult(true, null, "Schedule 'nightly' is paused", null, List.of()));
		assertThat(this.schedules.find("nightly").orElseThrow().paused()).isTrue();
		assertThat(this.admin.pauseSchedule("nightly")).isEqualTo(new AdminResult(false, Refusal.ALREADY_PAUSED,
				"Schedule 'nightly' was paused already", null, List.of()));
		assertThat(this.admin.resumeSchedule("nightly")).isEqualTo(
				new AdminResult(true, null, "Schedule 'nightly' fires again from its next tick", null, List.of()));
		assertThat(this.admin.resumeSchedule("nightly")).isEqualTo(
				new AdminResult(false, Refusal.NOT_PAUSED, "Schedule 'nightly' was not paused", null, List.of()));
	}

	@Test
	void refusesToTriggerAScheduleThatCannotFireHere() {
		this.schedules.create(ScheduleDefinition.of("often", "report.build", Recurrence.every(Duration.ofMinutes(15))));
		AdminResult refused = this.admin.triggerSchedule("often");
		assertThat(refused.refusal()).isEqualTo(Refusal.NOT_FIRED);
		assertThat(refused.message()).isEqualTo("Schedule 'often' has no queue or attempts stored, and this instance"
				+ " lacks its handler 'report.build': trigger it where the handler is, or declare it again there to"
				+ " store them");
		assertThat(refused.ids()).isEmpty();
	}

	@Test
	void refusesAnActionOnAScheduleThatDoesNotExist() {
		AdminResult none = new AdminResult(false, Refusal.NO_SUCH_SCHEDULE, "No schedule named 'missing'", null,
				List.of());
		assertThat(this.admin.triggerSchedule("missing")).isEqualTo(none);
		assertThat(this.admin.pauseSchedule("missing")).isEqualTo(none);
		assertThat(this.admin.resumeSchedule("missing")).isEqualTo(none);
		QueueAdmin withoutSchedules = new DefaultQueueAdmin(queue(), this.fixture.store(), null, null, null);
		assertThat(withoutSchedules.triggerSchedule("missing")).isEqualTo(none);
	}

	// --- limits

	@Test
	void setsAndRemovesTheLimitsOfAQueueAndOfItsKeys() {
		assertThat(this.admin.setLimit("api", null, 1, "100/1m")).isEqualTo(new AdminResult(true, null,
				"Limit of queue 'api' is concurrency 1, rate 100/1m", null, List.of()));
		assertThat(this.admin.setLimit("api", "customer:*", Limit.concurrency(2)).message())
			.isEqualTo("Limit of queue 'api' keys 'customer:*' is concurrency 2");
		QueueLimits limits = this.fixture.flowControl().limits("api");
		assertThat(limits.limit()).isEqualTo(Limit.concurrency(1).withRate(100, Duration.ofMinutes(1)));
		assertThat(limits.keyLimits()).singleElement().satisfies((key) -> assertThat(key.keys()).isEqualTo("customer:*"));

		assertThat(this.admin.removeLimit("api", null))
			.isEqualTo(new AdminResult(true, null, "Limit of queue 'api' is removed", null, List.of()));
		assertThat(this.admin.removeLimit("api", null)).isEqualTo(
				new AdminResult(false, Refusal.NO_SUCH_LIMIT, "No limit of queue 'api'", null, List.of()));
		assertThat(this.admin.removeLimit("api", "customer:*").message())
			.isEqualTo("Limit of queue 'api' keys 'customer:*' is removed");
		assertThat(this.admin.removeLimit("api", "customer:*").message())
			.isEqualTo("No limit of queue 'api' keys 'customer:*'");
		assertThat(this.fixture.flowControl().limits("api").isEmpty()).isTrue();
	}

	@Test
	void refusesAnInvalidLimitAndChangesNothing() {
		assertThatExceptionOfType(RefusedException.class).isThrownBy(() -> this.admin.setLimit("api", null, null, null))
			.withMessage("Invalid limit of queue 'api': A limit needs a concurrency, a rate, or both")
			.satisfies((ex) -> assertThat(ex.refusal()).isEqualTo(Refusal.INVALID_LIMIT));
		assertThatExceptionOfType(RefusedException.class).isThrownBy(() -> this.admin.setLimit("api", "k", 1, "fast"))
			.withMessageStartingWith("Invalid limit of queue 'api' keys 'k': 'fast' is not a rate limit");
		assertThatExceptionOfType(RefusedException.class)
			.isThrownBy(() -> this.admin.setLimit("no such queue", null, Limit.concurrency(1)))
			.withMessageStartingWith("Invalid limit of queue 'no such queue': ");
		assertThat(this.fixture.flowControl().all()).isEmpty();
	}

	@Test
	void refusesLimitsWhereTheApplicationHasNone() {
		QueueAdmin withoutLimits = new DefaultQueueAdmin(queue(), this.fixture.store(), null, null, null);
		AdminResult none = new AdminResult(false, Refusal.NO_LIMITS, "This application has no limits", null, List.of());
		assertThat(withoutLimits.setLimit("api", null, 1, null)).isEqualTo(none);
		assertThat(withoutLimits.setLimit("api", null, Limit.concurrency(1))).isEqualTo(none);
		assertThat(withoutLimits.removeLimit("api", null)).isEqualTo(none);
	}

	private JobQueue queue() {
		return this.fixture.queue();
	}

	private List<JobRecord> claim(String queue, String... handlers) {
		return this.fixture.store().claim(new ClaimRequest("elsewhere", queue, List.of(handlers), 100, 60_000));
	}

	/** Claims the due jobs of these handlers in the queue and fails them. */
	private void fail(String queue, String... handlers) {
		for (JobRecord job : claim(queue, handlers)) {
			this.fixture.store().fail(new Lease(job.id(), job.leaseToken()), "broken");
		}
	}

}
