package io.sqlqueue.boot.actuate.endpoint;

import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;

import io.sqlqueue.JobStatus;
import io.sqlqueue.admin.AdminResult;
import io.sqlqueue.admin.QueueAdmin;
import io.sqlqueue.admin.RefusedException;
import io.sqlqueue.flow.FlowControl;
import io.sqlqueue.flow.QueueLimits;
import io.sqlqueue.internal.manager.Manager;
import io.sqlqueue.internal.store.QueueCount;
import io.sqlqueue.internal.store.ReadStore;
import io.sqlqueue.schedule.Schedules;

/**
 * The queues, for {@link SqlQueueEndpoint}: what {@code GET /sqlqueue} shows of them (their
 * jobs per state, this instance's workers, their limits and pauses, with the schedules, the
 * instances, the tables' health and the audit log's newest entries beside them), and pausing
 * or resuming one ({@code POST /sqlqueue/queues/{queue}}).
 */
final class QueueOperations {

	private final ReadStore reads;

	private final @Nullable Manager manager;

	private final @Nullable Schedules schedules;

	private final @Nullable FlowControl flowControl;

	private final QueueAdmin admin;

	QueueOperations(ReadStore reads, @Nullable Manager manager, @Nullable Schedules schedules,
			@Nullable FlowControl flowControl, QueueAdmin admin) {
		this.reads = reads;
		this.manager = manager;
		this.schedules = schedules;
		this.flowControl = flowControl;
		this.admin = admin;
	}

	/** As {@link SqlQueueEndpoint#queues()}. */
	QueuesDescriptor overview() {
		ReadsDescriptor reads = ReadsDescriptor.of(this.reads.staleness());
		List<QueueCount> counts = this.reads.countsByQueue();
		Map<String, QueueLimits> limits = new TreeMap<>();
		Map<String, Map<String, Long>> throttled = Map.of();
		if (this.flowControl != null) {
			this.flowControl.all().forEach((queueLimits) -> limits.put(queueLimits.queue(), queueLimits));
			throttled = this.flowControl.throttled();
		}
		Instant countedAt = Instant.now();
		Map<String, Integer> busy = (this.manager != null) ? this.manager.busyWorkers() : Map.of();
		Map<String, Integer> total = (this.manager != null) ? this.manager.totalWorkers() : Map.of();
		Map<String, Map<JobStatus, Long>> jobsByQueue = new TreeMap<>();
		Map<String, Duration> oldest = new TreeMap<>();
		Map<String, Set<JobStatus>> estimated = new TreeMap<>();
		Map<String, PausedDescriptor> paused = new TreeMap<>();
		this.admin.pausedQueues()
			.forEach((queue) -> paused.put(queue.queue(), new PausedDescriptor(queue.pausedAt(), queue.pausedBy())));
		List<InstanceDescriptor> instances = this.admin.instances().stream().map(InstanceDescriptor::of).toList();
		total.keySet().forEach((queue) -> jobsByQueue.computeIfAbsent(queue, (key) -> zeroCounts()));
		paused.keySet().forEach((queue) -> jobsByQueue.computeIfAbsent(queue, (key) -> zeroCounts()));
		limits.keySet().forEach((queue) -> jobsByQueue.computeIfAbsent(queue, (key) -> zeroCounts()));
		for (QueueCount count : counts) {
			jobsByQueue.computeIfAbsent(count.queue(), (key) -> zeroCounts()).merge(count.status(), count.jobs(), Long::sum);
			if (count.estimated()) {
				estimated.computeIfAbsent(count.queue(), (key) -> EnumSet.noneOf(JobStatus.class)).add(count.status());
			}
			if (count.status() == JobStatus.QUEUED) {
				oldest.put(count.queue(), count.oldestDueAge());
			}
		}
		Map<String, QueueDescriptor> queues = new TreeMap<>();
		Map<String, Map<String, Long>> held = throttled;
		jobsByQueue.forEach((queue, jobs) -> queues.put(queue,
				new QueueDescriptor(jobs, oldest.getOrDefault(queue, Duration.ZERO).toString(), busy.get(queue),
						total.get(queue), LimitsDescriptor.shown(limits.get(queue), this.flowControl),
						held.getOrDefault(queue, Map.of()), paused.get(queue),
						estimated.getOrDefault(queue, Set.of()))));
		Map<String, ScheduleDescriptor> schedules = new TreeMap<>();
		if (this.schedules != null) {
			this.schedules.list()
				.forEach((schedule) -> schedules.put(schedule.name(), ScheduleDescriptor.of(schedule)));
		}
		return new QueuesDescriptor(countedAt, queues, schedules, instances, this.admin.tableHealth(),
				this.admin.audit(QueuesDescriptor.AUDIT_SHOWN), reads);
	}

	/**
	 * Pauses ({@code action=pause}) or resumes ({@code action=resume}) the queue on every
	 * instance, as {@code admin} (who the request acts for); a blank, malformed or unknown
	 * queue is a 400 and nothing is stored.
	 */
	QueueActionDescriptor act(QueueAdmin admin, String queue, String action) {
		if (!action.equals("pause") && !action.equals("resume")) {
			throw new InvalidEndpointRequestException("Unknown action '" + action + "'; use 'pause' or 'resume'",
					"Unknown action");
		}
		AdminResult result;
		try {
			result = action.equals("pause") ? admin.pauseQueue(queue) : admin.resumeQueue(queue);
		}
		catch (RefusedException ex) {
			throw new InvalidEndpointRequestException(ex.getMessage(), "Invalid queue");
		}
		return new QueueActionDescriptor(queue, action, result.done(), result.message());
	}

	private static Map<JobStatus, Long> zeroCounts() {
		Map<JobStatus, Long> counts = new EnumMap<>(JobStatus.class);
		for (JobStatus status : JobStatus.values()) {
			counts.put(status, 0L);
		}
		return counts;
	}

}
