package io.sqlqueue.sample;

import java.time.Instant;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.stereotype.Component;

import io.sqlqueue.Job;
import io.sqlqueue.JobContext;
import io.sqlqueue.JobHandler;
import io.sqlqueue.JobQueue;
import io.sqlqueue.boot.schedule.Recurring;

/**
 * A recurring job: every night at 02:00 Berlin time (once across all instances), a
 * sign-ups report is requested and built by the {@code report.build} job it enqueues.
 * Operators can pause, resume or trigger it through the {@code sqlqueue} endpoint
 * ({@code POST /actuator/sqlqueue/schedules/nightly-report}).
 */
@Component
public class NightlyReport {

	private static final Logger logger = LoggerFactory.getLogger(NightlyReport.class);

	private final Reports reports;

	private final JobQueue jobs;

	public NightlyReport(Reports reports, JobQueue jobs) {
		this.reports = reports;
		this.jobs = jobs;
	}

	@JobHandler(value = "report.nightly", queue = "reports")
	@Recurring(name = "nightly-report", cron = "0 0 2 * * *", zone = "Europe/Berlin")
	public long requestNightlyReport(JobContext context) {
		Instant tick = context.scheduledFor();
		long reportId = this.reports.insert("signups", 0);
		long jobId = this.jobs.enqueue(Job.of("report.build", new BuildReport(reportId)));
		logger.info("Nightly report {} (for the tick {}) is built by job {}", reportId, tick, jobId);
		return reportId;
	}

}
