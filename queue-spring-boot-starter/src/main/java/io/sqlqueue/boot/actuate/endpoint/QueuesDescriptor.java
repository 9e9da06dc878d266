package io.sqlqueue.boot.actuate.endpoint;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.OperationResponseBody;

import io.sqlqueue.admin.AuditEntry;
import io.sqlqueue.admin.QueueAdmin;
import io.sqlqueue.admin.Staleness;
import io.sqlqueue.admin.TableHealth;

/**
 * Jobs per queue.
 * @param countedAt when they were counted
 * @param queues by queue name
 * @param schedules the recurring jobs' schedules, by name
 * @param instances the instances that run jobs, the longest running first, with those gone
 * but not yet deleted
 * @param tables the health of the queue's tables as last read on a schedule (its
 * {@code readAt} says when), or {@code null} when not asked for
 * @param audit the newest {@value #AUDIT_SHOWN} entries of the audit log, newest first
 * @param reads where the counts in {@code queues} were read, and how far behind that was
 * (asked just before they were counted)
 */
public record QueuesDescriptor(Instant countedAt, Map<String, QueueDescriptor> queues,
		Map<String, ScheduleDescriptor> schedules, List<InstanceDescriptor> instances,
		@Nullable TableHealth tables, List<AuditEntry> audit, ReadsDescriptor reads)
		implements OperationResponseBody {

	/** Entries of the audit log that {@code GET /sqlqueue} shows; {@link QueueAdmin#audit} has more. */
	static final int AUDIT_SHOWN = 20;

	public QueuesDescriptor(Instant countedAt, Map<String, QueueDescriptor> queues) {
		this(countedAt, queues, Map.of());
	}

	public QueuesDescriptor(Instant countedAt, Map<String, QueueDescriptor> queues,
			Map<String, ScheduleDescriptor> schedules) {
		this(countedAt, queues, schedules, List.of(), null, List.of(), ReadsDescriptor.of(
				Staleness.primary(countedAt)));
	}

}
