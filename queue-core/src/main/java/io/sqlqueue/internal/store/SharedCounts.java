package io.sqlqueue.internal.store;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * The counts one instance wrote for the cluster ({@code queue_count}), as read by another.
 *
 * @param counts jobs per queue and status
 * @param throttled due jobs that limits hold back, per queue and by limit
 * @param countedBy the instance that counted them, or {@code null} if none has yet
 * @param age how long ago they were counted, on the database's clock
 * @param took how long that count took, from its turn taken to its counts written, or
 * {@code null} while a later turn is under way (or none was counted)
 */
public record SharedCounts(List<QueueCount> counts, Map<String, Map<String, Long>> throttled,
		@Nullable String countedBy, Duration age, @Nullable Duration took) {

	/** Whether any instance has counted yet. */
	public boolean counted() {
		return this.countedBy != null;
	}

}
