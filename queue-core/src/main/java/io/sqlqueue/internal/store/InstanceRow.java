package io.sqlqueue.internal.store;

import java.time.Instant;
import java.util.List;

/**
 * A row of {@code queue_instance}: one running instance as it last told, its times on the
 * database's clock.
 *
 * @param beatMillis how often it writes its row
 * @param dbNow the database's clock when the row was read
 */
public record InstanceRow(String id, String host, long pid, String version, List<String> queues, int concurrency,
		int busyWorkers, long beatMillis, Instant startedAt, Instant lastSeen, Instant dbNow) {

	public InstanceRow {
		queues = List.copyOf(queues);
	}

}
