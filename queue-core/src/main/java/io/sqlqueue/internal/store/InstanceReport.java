package io.sqlqueue.internal.store;

import java.util.List;

/**
 * What an instance writes into its row of {@code queue_instance} at each beat.
 *
 * @param beatMillis how often it writes its row (what "gone" is measured against)
 */
public record InstanceReport(String id, String host, long pid, String version, List<String> queues,
		int concurrency, int busyWorkers, long beatMillis) {

	public InstanceReport {
		queues = List.copyOf(queues);
	}

}
