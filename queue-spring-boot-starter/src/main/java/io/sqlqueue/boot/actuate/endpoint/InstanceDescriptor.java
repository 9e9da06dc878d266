package io.sqlqueue.boot.actuate.endpoint;

import java.time.Instant;
import java.util.List;

import io.sqlqueue.admin.QueueInstance;

/**
 * An instance as its row last said ({@link QueueInstance}).
 * @param sinceSeen how long since it last wrote its row (ISO-8601, database clock)
 * @param gone whether it missed three beats
 */
public record InstanceDescriptor(String id, String host, long pid, String version, List<String> queues,
		int concurrency, int busyWorkers, Instant startedAt, Instant lastSeen, String sinceSeen, boolean gone) {

	static InstanceDescriptor of(QueueInstance instance) {
		return new InstanceDescriptor(instance.id(), instance.host(), instance.pid(), instance.version(),
				instance.queues(), instance.concurrency(), instance.busyWorkers(), instance.startedAt(),
				instance.lastSeen(), instance.sinceSeen().toString(), instance.gone());
	}

}
