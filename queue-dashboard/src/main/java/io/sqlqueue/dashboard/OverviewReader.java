package io.sqlqueue.dashboard;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import org.jspecify.annotations.Nullable;

import io.sqlqueue.JobStatus;
import io.sqlqueue.admin.QueueAdmin;
import io.sqlqueue.admin.QueueInstance;
import io.sqlqueue.admin.Staleness;
import io.sqlqueue.flow.FlowControl;
import io.sqlqueue.flow.QueueLimits;
import io.sqlqueue.internal.manager.Manager;
import io.sqlqueue.internal.store.FinishedCount;
import io.sqlqueue.internal.store.QueueCount;
import io.sqlqueue.internal.store.QueuedCount;
import io.sqlqueue.internal.store.ReadPace;
import io.sqlqueue.internal.store.ReadStore;
import io.sqlqueue.schedule.Recurrence;
import io.sqlqueue.schedule.ScheduleRecord;
import io.sqlqueue.schedule.Schedules;

/**
 * Reads the {@link Overview}. Counting the jobs per queue and state is one grouped query
 * over the whole table (about half a second on PostgreSQL with a million jobs), so the
 * counts, the queued jobs by why they wait, the jobs finished per minute and the schedules
 * are read at most once per {@code maxAge}, however many pages are open, and only while
 * someone looks; after a read that took long, ten times as long as it took later (up to ten
 * times {@code maxAge}; {@link ReadPace}: while a long transaction holds the database's
 * horizon, a count walks every job claimed since, and an open page would keep the database
 * counting). The counts, the queued jobs and the finished ones are read from the
 * {@link ReadStore} (the read replica where there is one, asked first how far behind it is);
 * the rest from the queue's own database. The workers are this instance's, read from its
 * Manager each time; the paused queues and the instances' rows are read each time too (two
 * small tables).
 */
public class OverviewReader {

	/** The minutes the jobs finished per minute cover. */
	public static final int MINUTES = 15;

	private final ReadStore reads;

	private final @Nullable Manager manager;

	private final @Nullable Schedules schedules;

	private final @Nullable String instance;

	private final Duration maxAge;

	private final @Nullable FlowControl flowControl;

	private final @Nullable QueueAdmin admin;

	private @Nullable Counts counts;

	/** When the counts are read again: {@code maxAge} after the last read, or as paced after a slow one. */
	private Instant nextReadAt = Instant.MIN;

	/**
	 * @param manager this instance's Manager, or {@code null} when it runs no jobs
	 * @param schedules the recurring jobs, or {@code null} to show none
	 * @param flowControl the queues' limits, or {@code null} to show none
	 * @param admin where the paused queues and the instances are read, or {@code null} to show none
	 * @param instance this instance's worker id
	 * @param maxAge how long counts are reused
	 */
	public OverviewReader(ReadStore reads, @Nullable Manager manager, @Nullable Schedules schedules,
			@Nullable FlowControl flowControl, @Nullable QueueAdmin admin, @Nullable String instance,
			Duration maxAge) {
		this.flowControl = flowControl;
		this.admin = admin;
		this.reads = reads;
		this.manager = manager;
		this.schedules = schedules;
		this.instance = instance;
		this.maxAge = maxAge;
	}

	public Overview read() {
		Counts counts = counts();
		Map<String, Integer> busy = (this.manager != null) ? this.manager.busyWorkers() : Map.of();
		Map<String, Integer> total = (this.manager != null) ? this.manager.totalWorkers() : Map.of();
		TreeSet<String> names = new TreeSet<>(total.keySet());
		counts.jobs().forEach((count) -> names.add(count.queue()));
		Map<String, Overview.Queued> queued = new TreeMap<>();
		for (QueuedCount count : counts.queued()) {
			names.add(count.queue());
			queued.put(count.queue(), new Overview.Queued(count.due(), count.delayed(), count.backingOff(),
					count.parked()));
		}
		counts.finished().forEach((count) -> names.add(count.queue()));
		names.addAll(counts.limits().keySet());
		// Read each time, not with the counts: two small tables, and a pause must show at once.
		Map<String, Overview.Paused> paused = new TreeMap<>();
		List<Overview.InstanceLine> instances = List.of();
		if (this.admin != null) {
			this.admin.pausedQueues()
				.forEach((queue) -> paused.put(queue.queue(), new Overview.Paused(queue.pausedAt(), queue.pausedBy())));
			instances = this.admin.instances().stream().map(OverviewReader::line).toList();
		}
		names.addAll(paused.keySet());
		List<Overview.QueueLine> queues = new ArrayList<>();
		for (String name : names) {
			Map<JobStatus, Long> jobs = new EnumMap<>(JobStatus.class);
			for (JobStatus status : JobStatus.values()) {
				jobs.put(status, 0L);
			}
			long oldest = 0;
			Set<JobStatus> estimated = EnumSet.noneOf(JobStatus.class);
			for (QueueCount count : counts.jobs()) {
				if (count.queue().equals(name)) {
					jobs.merge(count.status(), count.jobs(), Long::sum);
					if (count.estimated()) {
						estimated.add(count.status());
					}
					if (count.status() == JobStatus.QUEUED) {
						oldest = count.oldestDueAge().toMillis();
					}
				}
			}
			queues.add(new Overview.QueueLine(name, jobs, oldest, busy.get(name), total.get(name),
					perMinute(counts.finished(), name, JobStatus.SUCCEEDED),
					perMinute(counts.finished(), name, JobStatus.FAILED), counts.limits().getOrDefault(name, List.of()),
					counts.throttled().getOrDefault(name, Map.of()),
					queued.getOrDefault(name, Overview.Queued.NONE), paused.get(name), estimated));
		}
		return new Overview(counts.readAt(), this.instance, MINUTES, queues, counts.schedules(), instances,
				ReadsView.of(counts.staleness()));
	}

	private synchronized Counts counts() {
		Instant now = Instant.now();
		if (this.counts == null || this.nextReadAt.isBefore(now)) {
			long start = System.nanoTime();
			List<Overview.ScheduleLine> schedules = (this.schedules != null)
					? this.schedules.list().stream().map(OverviewReader::line).toList() : List.of();
			Map<String, List<String>> limits = new TreeMap<>();
			Map<String, Map<String, Long>> throttled = Map.of();
			if (this.flowControl != null) {
				FlowControl flow = this.flowControl;
				flow.all().forEach((queue) -> limits.put(queue.queue(), describe(queue, flow)));
				throttled = this.flowControl.throttled();
			}
			Staleness staleness = this.reads.staleness();
			this.counts = new Counts(now, this.reads.countsByQueue(), this.reads.queuedByQueue(),
					this.reads.finishedPerMinute(MINUTES), schedules, limits, throttled, staleness);
			Duration took = Duration.ofNanos(System.nanoTime() - start);
			this.nextReadAt = now.plus(took).plus(ReadPace.nextWithin(this.maxAge, took));
		}
		return this.counts;
	}

	/** Oldest minute first, as a chart reads. */
	private static List<Long> perMinute(List<FinishedCount> finished, String queue, JobStatus status) {
		Long[] minutes = new Long[MINUTES];
		java.util.Arrays.fill(minutes, 0L);
		for (FinishedCount count : finished) {
			if (count.queue().equals(queue) && count.status() == status && count.minutesAgo() < MINUTES) {
				minutes[MINUTES - 1 - count.minutesAgo()] += count.jobs();
			}
		}
		return Collections.unmodifiableList(java.util.Arrays.asList(minutes));
	}

	private static Overview.ScheduleLine line(ScheduleRecord schedule) {
		Recurrence recurrence = schedule.definition().recurrence();
		String when = (recurrence.cron() != null) ? recurrence.cron() + " (" + recurrence.zone() + ")"
				: "every " + Durations.human(recurrence.every());
		return new Overview.ScheduleLine(schedule.name(), schedule.definition().handler(),
				schedule.definition().queue(), when, schedule.nextRunAt(), schedule.lastFiredAt(), schedule.lastJobId(),
				schedule.lastJobStatus(), schedule.paused(), schedule.orphaned());
	}

	private static Overview.InstanceLine line(QueueInstance instance) {
		return new Overview.InstanceLine(instance.id(), instance.host(), instance.pid(), instance.version(),
				instance.queues(), instance.concurrency(), instance.busyWorkers(), instance.startedAt(),
				instance.lastSeen(), instance.sinceSeen().toMillis(), instance.gone());
	}

	/** Fair keys shown on the overview at most, those with the most jobs due. */
	static final int FAIR_KEYS_SHOWN = 5;

	/**
	 * The queue's own limit first, then its keys', then its fair turns with the keys that have
	 * the most jobs due and their share of the last minute's starts.
	 */
	private static List<String> describe(QueueLimits limits, FlowControl flow) {
		List<String> lines = new ArrayList<>();
		if (limits.limit() != null) {
			lines.add("queue: " + limits.limit());
		}
		limits.keyLimits().forEach((key) -> lines.add(key.keys() + ": " + key.limit()));
		if (limits.fairness() != null) {
			lines.add("fair turns: " + limits.fairness());
			flow.fairShares(limits.queue()).stream().limit(FAIR_KEYS_SHOWN).forEach((share) -> lines.add(
					"%s: %d due, %d%% of starts".formatted((share.key() != null) ? share.key() : "(no key)",
							share.due(), Math.round(100 * share.share()))));
		}
		return lines;
	}

	private record Counts(Instant readAt, List<QueueCount> jobs, List<QueuedCount> queued, List<FinishedCount> finished,
			List<Overview.ScheduleLine> schedules, Map<String, List<String>> limits,
			Map<String, Map<String, Long>> throttled, Staleness staleness) {
	}

}
