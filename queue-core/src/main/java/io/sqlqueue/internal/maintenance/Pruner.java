package io.sqlqueue.internal.maintenance;

import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.Map;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.scheduling.TaskScheduler;

import io.sqlqueue.JobStatus;
import io.sqlqueue.internal.store.JobStore;
import io.sqlqueue.internal.store.PrunedJobs;

/**
 * Deletes finished jobs once they are older than their retention, in bounded batches, so
 * the table does not grow without end (their attempts with them), and the audit log's
 * entries past theirs. It touches only finished rows: claiming never
 * waits for it. Safe to run on every instance at once.
 */
public class Pruner extends PeriodicTask {

	/** The most jobs of one state one pass deletes; a full pass runs again at once. */
	public static final int BATCH_SIZE = 1000;

	private static final Logger logger = LoggerFactory.getLogger(Pruner.class);

	private final JobStore store;

	private final Map<JobStatus, Duration> retention = new EnumMap<>(JobStatus.class);

	private final Duration auditRetention;

	/**
	 * @param succeeded how long {@code SUCCEEDED} jobs are kept; zero keeps them forever
	 * @param cancelled how long {@code CANCELLED} jobs are kept; zero keeps them forever
	 * @param failed how long {@code FAILED} jobs are kept; zero keeps them forever
	 */
	public Pruner(JobStore store, TaskScheduler scheduler, Duration interval, Duration succeeded, Duration cancelled,
			Duration failed) {
		this(store, scheduler, interval, succeeded, cancelled, failed, Duration.ZERO);
	}

	/**
	 * @param audit how long the audit log's entries are kept; zero keeps them forever
	 */
	public Pruner(JobStore store, TaskScheduler scheduler, Duration interval, Duration succeeded, Duration cancelled,
			Duration failed, Duration audit) {
		super(scheduler, interval, "pruner");
		if (audit.isNegative()) {
			throw new IllegalArgumentException("Retention of the audit log must not be negative");
		}
		this.auditRetention = audit;
		this.store = store;
		keep(JobStatus.SUCCEEDED, succeeded);
		keep(JobStatus.CANCELLED, cancelled);
		keep(JobStatus.FAILED, failed);
	}

	private void keep(JobStatus status, Duration age) {
		if (age.isNegative()) {
			throw new IllegalArgumentException("Retention of " + status + " jobs must not be negative");
		}
		if (!age.isZero()) {
			this.retention.put(status, age);
		}
	}

	/** One batch: deletes up to {@link #BATCH_SIZE} jobs of each finished state past its retention, the oldest first. */
	public Map<JobStatus, Integer> runOnce() {
		return runOnce(new EnumMap<>(JobStatus.class));
	}

	/**
	 * One batch, each state's read from where its last batch in this pass ended ({@code from},
	 * which it moves on): a pass starts from the oldest once, not once per batch
	 * ({@link JobStore#pruneFinished(JobStatus, Duration, java.time.Instant, int)} says why).
	 */
	private Map<JobStatus, Integer> runOnce(Map<JobStatus, Instant> from) {
		Map<JobStatus, Integer> deleted = new EnumMap<>(JobStatus.class);
		this.retention.forEach((status, age) -> {
			PrunedJobs pruned = this.store.pruneFinished(status, age, from.get(status), BATCH_SIZE);
			deleted.put(status, pruned.count());
			if (pruned.lastFinishedAt() != null) {
				from.put(status, pruned.lastFinishedAt());
			}
		});
		// A batch outlives its jobs: it is deleted once the longest retention has passed
		// since it finished, and kept while any finished state is kept forever.
		if (this.retention.size() == 3) {
			this.store.pruneBatches(this.retention.values().stream().max(Duration::compareTo).orElseThrow());
		}
		return deleted;
	}

	/** Deletes the audit log's entries past their retention; returns how many. */
	public int pruneAudit() {
		return this.auditRetention.isZero() ? 0 : this.store.audit().prune(this.auditRetention);
	}

	@Override
	protected boolean hasWork() {
		return !this.retention.isEmpty() || !this.auditRetention.isZero();
	}

	@Override
	protected void runPass() {
		try {
			Map<JobStatus, Instant> from = new EnumMap<>(JobStatus.class);
			Map<JobStatus, Integer> deleted;
			do {
				deleted = runOnce(from);
				logger.debug("sqlqueue pruned finished jobs: {}", deleted);
			}
			while (deleted.values().stream().anyMatch((count) -> count == BATCH_SIZE));
		}
		catch (RuntimeException ex) {
			logger.warn("sqlqueue could not prune finished jobs; trying again in {}", interval(), ex);
		}
		try {
			logger.debug("sqlqueue pruned {} entries of the audit log", pruneAudit());
		}
		catch (RuntimeException ex) {
			logger.warn("sqlqueue could not prune the audit log; trying again in {}", interval(), ex);
		}
	}

}
