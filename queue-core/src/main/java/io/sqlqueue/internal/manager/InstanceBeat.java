package io.sqlqueue.internal.manager;

import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.scheduling.TaskScheduler;

import io.sqlqueue.internal.maintenance.PeriodicTask;
import io.sqlqueue.internal.store.ClusterStore;
import io.sqlqueue.internal.store.InstanceReport;

/**
 * Keeps this instance's row of {@code queue_instance}: written at start and every heartbeat
 * interval (the cadence at which the instance already proves it is alive to its leases, so
 * "gone" — three beats missed — means what an expired lease means, and the row costs one
 * small write per instance every 20 s by default), deleted when the Manager stops cleanly.
 * Each beat also deletes the rows of instances not seen for the retention: any live
 * instance cleans up after those that crashed.
 * <p>
 * A beat that fails (the database is away, or the schema predates {@code queue_instance})
 * is logged, a warning the first time, and tried again at the next: the row is for
 * operators, and nothing the instance does depends on it.
 */
final class InstanceBeat extends PeriodicTask {

	private static final Logger logger = LoggerFactory.getLogger(InstanceBeat.class);

	private final ClusterStore store;

	private final ManagerSettings settings;

	private final Supplier<InstanceReport> report;

	/** One beat at a time (a test's step and a scheduled pass); not the task's own monitor. */
	private final Object beat = new Object();

	private boolean failing;

	/** Run after each beat, each guarded: work that keeps this instance's declarations. */
	private final List<Runnable> alsoAtEachBeat = new CopyOnWriteArrayList<>();

	InstanceBeat(ClusterStore store, ManagerSettings settings, TaskScheduler scheduler,
			Supplier<InstanceReport> report) {
		super(scheduler, settings.heartbeatInterval(), "instance beat");
		this.store = store;
		this.settings = settings;
		this.report = report;
	}

	/** The row is wanted from the start: the first beat runs at once. */
	@Override
	protected Duration firstDelay() {
		return Duration.ZERO;
	}

	@Override
	protected void runPass() {
		beatOnce();
	}

	/** One beat: writes the row, then deletes those unseen for the retention; false when it failed. */
	boolean beatOnce() {
		synchronized (this.beat) {
			boolean beaten = beatUnderLock();
			for (Runnable task : this.alsoAtEachBeat) {
				try {
					task.run();
				}
				catch (RuntimeException ex) {
					// While the database is away the beat says so once; its tasks add no stack trace a beat.
					if (beaten) {
						logger.warn("sqlqueue Manager {} failed a task of its instance beat", this.settings.workerId(), ex);
					}
					else {
						logger.debug("sqlqueue Manager {} failed a task of its instance beat", this.settings.workerId(), ex);
					}
				}
			}
			return beaten;
		}
	}

	/** Runs {@code task} after each beat, every heartbeat interval; it must not throw nor wait long. */
	void alsoAtEachBeat(Runnable task) {
		this.alsoAtEachBeat.add(task);
	}

	private boolean beatUnderLock() {
		try {
			this.store.beat(this.report.get());
			int deleted = this.store.deleteUnseen(this.settings.instanceRetention());
			if (deleted > 0) {
				logger.info("sqlqueue deleted the rows of {} instances not seen for {}", deleted,
						this.settings.instanceRetention());
			}
			this.failing = false;
			return true;
		}
		catch (RuntimeException ex) {
			if (!this.failing) {
				logger.warn("sqlqueue Manager {} could not write its instance row; trying again in {}",
						this.settings.workerId(), this.settings.heartbeatInterval(), ex);
				this.failing = true;
			}
			else {
				logger.debug("sqlqueue Manager {} could not write its instance row", this.settings.workerId(), ex);
			}
			return false;
		}
	}

	/** Stops beating, waits for a beat under way, and deletes the row. */
	@Override
	public void stop() {
		super.stop();
		awaitPass();
		try {
			this.store.deleteInstance(this.settings.workerId());
		}
		catch (RuntimeException ex) {
			logger.debug("sqlqueue Manager {} could not delete its instance row; it shows as gone",
					this.settings.workerId(), ex);
		}
	}

	/** A report of this JVM: its host, process id and sqlqueue version, and these figures. */
	static InstanceReport report(ManagerSettings settings, List<String> queues, int concurrency, int busyWorkers) {
		return new InstanceReport(settings.workerId(), HOST, ManagementFactory.getRuntimeMXBean().getPid(), VERSION,
				queues, concurrency, busyWorkers, settings.heartbeatInterval().toMillis());
	}

	private static final String HOST = host();

	private static final String VERSION = version();

	private static String host() {
		try {
			return InetAddress.getLocalHost().getHostName();
		}
		catch (UnknownHostException ex) {
			return "unknown";
		}
	}

	private static String version() {
		String version = InstanceBeat.class.getPackage().getImplementationVersion();
		return (version != null) ? version : "development";
	}

}
