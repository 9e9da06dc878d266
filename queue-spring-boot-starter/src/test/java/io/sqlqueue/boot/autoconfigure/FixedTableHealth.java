package io.sqlqueue.boot.autoconfigure;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.springframework.scheduling.concurrent.SimpleAsyncTaskScheduler;

import io.sqlqueue.admin.TableHealth;
import io.sqlqueue.internal.maintenance.TableHealthMonitor;
import io.sqlqueue.internal.store.QueueStore;

/**
 * A {@link TableHealthMonitor} that never reads and answers the reading a test sets: for what
 * H2, which reports no holders, cannot show (a transaction holding the horizon, dead rows).
 */
public class FixedTableHealth extends TableHealthMonitor {

	private volatile TableHealth reading;

	public FixedTableHealth(QueueStore store) {
		super(store, new SimpleAsyncTaskScheduler(), Duration.ofHours(1));
		this.reading = TableHealth.notRead("postgresql");
	}

	/** A PostgreSQL reading: the job table with these dead rows, held back by a session open this long. */
	public static TableHealth heldBack(long deadRows, Duration open) {
		return new TableHealth("postgresql", Instant.now(),
				List.of(new TableHealth.Table("queue_job", 1_000L, deadRows, 81_920L, 16_384L, null)),
				List.of(new TableHealth.Holder(TableHealth.TRANSACTION, 4242L, null, "report-tool", "idle in transaction",
						open, 1_500L, null)),
				null, List.of("free space"), null);
	}

	public void set(TableHealth reading) {
		this.reading = reading;
	}

	@Override
	public void start() {
	}

	@Override
	public TableHealth latest() {
		return this.reading;
	}

	@Override
	public TableHealth refresh() {
		return this.reading;
	}

}
