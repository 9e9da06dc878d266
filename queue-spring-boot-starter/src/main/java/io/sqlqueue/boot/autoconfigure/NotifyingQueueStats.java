package io.sqlqueue.boot.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;

import org.springframework.scheduling.TaskScheduler;

import io.sqlqueue.flow.FlowControl;
import io.sqlqueue.internal.maintenance.QueueStats;
import io.sqlqueue.internal.store.JobStore;

/**
 * {@link QueueStats} that tells subscribers about each new snapshot, so that gauges for a
 * queue that shows up later are registered as soon as it is counted.
 */
public class NotifyingQueueStats extends QueueStats {

	private final List<Consumer<Snapshot>> subscribers = new CopyOnWriteArrayList<>();

	/**
	 * Counts the jobs the limits of {@code flowControl} (when not {@code null}) hold back too,
	 * taking the cluster's turns to count as {@code instance} (when not {@code null}).
	 */
	public NotifyingQueueStats(JobStore store, TaskScheduler scheduler, Duration interval,
			@Nullable FlowControl flowControl, @Nullable String instance) {
		super(store, scheduler, interval, flowControl, instance);
	}

	@Override
	protected void refreshed(Snapshot snapshot) {
		this.subscribers.forEach((subscriber) -> subscriber.accept(snapshot));
	}

	/** Calls {@code subscriber} after each refresh, on the refreshing thread. */
	public void subscribe(Consumer<Snapshot> subscriber) {
		this.subscribers.add(subscriber);
	}

}
