package io.sqlqueue.test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

import javax.sql.DataSource;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

import io.sqlqueue.JobListener;
import io.sqlqueue.JobQueue;
import io.sqlqueue.JobRecord;
import io.sqlqueue.JobStatus;
import io.sqlqueue.PayloadCodec;
import io.sqlqueue.flow.FlowControl;
import io.sqlqueue.handler.HandlerDefinition;
import io.sqlqueue.handler.RetryPolicy;
import io.sqlqueue.internal.DefaultJobQueue;
import io.sqlqueue.internal.await.JobAwaiter;
import io.sqlqueue.internal.flow.DefaultFlowControl;
import io.sqlqueue.internal.flow.FlowClaim;
import io.sqlqueue.internal.handler.HandlerRegistry;
import io.sqlqueue.internal.maintenance.Reaper;
import io.sqlqueue.internal.manager.Manager;
import io.sqlqueue.internal.manager.ManagerSettings;
import io.sqlqueue.internal.schema.QueueSchemaMigrator;
import io.sqlqueue.internal.store.ClaimMethod;
import io.sqlqueue.internal.store.FlowStore;
import io.sqlqueue.internal.store.JobStore;
import io.sqlqueue.internal.store.dialect.Dialects;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The queue wired by hand on one test database, the way the starter wires it: a store, a
 * {@link JobQueue}, and any number of {@link Manager}s, each an "instance" with its own
 * pool of connections, scheduler and workers.
 */
public final class QueueFixture implements AutoCloseable {

	/** Fast retries and polls, so tests wait for milliseconds, not seconds. */
	public static final RetryPolicy FAST_RETRIES = new RetryPolicy(3, Duration.ofMillis(20), 2.0,
			Duration.ofMillis(200), 0.0);

	private final TestDatabase.Isolated database;

	private final ClaimMethod claimMethod;

	private final JobStore store;

	private final PayloadCodec codec;

	private final HandlerRegistry handlers = new HandlerRegistry();

	private final JobQueue queue;

	private final RecordingJobListener listener = new RecordingJobListener();

	private final JobAwaiter awaiter;

	private final FlowControl flowControl;

	private final List<AutoCloseable> closeables = new ArrayList<>();

	public QueueFixture(TestDatabase.Isolated database, ClaimMethod claimMethod, PayloadCodec codec) {
		this.database = database;
		this.claimMethod = claimMethod;
		this.codec = codec;
		// As the starter does at start-up: detect the dialect, which checks the database too.
		assertThat(Dialects.detect(database.dataSource()).name()).isEqualTo(database.dialect().name());
		new QueueSchemaMigrator(database.dataSource(), database.dialect(), database.schema()).migrate();
		this.store = newStore(database.dataSource());
		this.awaiter = new JobAwaiter(this.store, codec, AWAIT_MAX_POLL);
		this.closeables.add(this.awaiter);
		this.queue = new DefaultJobQueue(this.store, codec, this.handlers, FAST_RETRIES, this.listener, this.awaiter);
		this.flowControl = new DefaultFlowControl(new FlowStore(database.dataSource(), database.dialect(), database.schema()));
	}

	/** The longest wait of the awaiters between reads: a job finished elsewhere is seen this soon. */
	public static final Duration AWAIT_MAX_POLL = Duration.ofMillis(200);

	/**
	 * Another instance's {@link JobQueue}: its own store on {@code dataSource} and its own
	 * awaiter, told nothing by this fixture's Managers, so it learns only through the database.
	 */
	public JobQueue otherInstanceQueue(DataSource dataSource) {
		JobStore store = newStore(dataSource);
		JobAwaiter awaiter = new JobAwaiter(store, this.codec, AWAIT_MAX_POLL);
		this.closeables.add(awaiter);
		return new DefaultJobQueue(store, this.codec, this.handlers, FAST_RETRIES, this.listener, awaiter);
	}

	public JobStore newStore(DataSource dataSource) {
		return new JobStore(dataSource, this.database.dialect(), this.database.schema(), this.claimMethod, null,
				FlowClaim::new);
	}

	public ClaimMethod claimMethod() {
		return this.claimMethod;
	}

	public JobStore store() {
		return this.store;
	}

	public JobQueue queue() {
		return this.queue;
	}

	/** The limits of the queues, whose changes wake the Managers this fixture starts. */
	public FlowControl flowControl() {
		return this.flowControl;
	}

	/** Limits kept in this database, changed by an instance whose Managers hear nothing of it. */
	public FlowControl otherInstanceFlowControl() {
		return new DefaultFlowControl(new FlowStore(this.database.dataSource(), this.database.dialect(), this.database.schema()));
	}

	public PayloadCodec codec() {
		return this.codec;
	}

	public HandlerRegistry handlers() {
		return this.handlers;
	}

	public JdbcTemplate jdbc() {
		return new JdbcTemplate(this.database.dataSource());
	}

	public TestDatabase.Isolated database() {
		return this.database;
	}

	public void register(HandlerDefinition handler) {
		this.handlers.register(handler);
	}

	/** Settings that poll often and retry fast. */
	public static ManagerSettings.Builder fastSettings() {
		return ManagerSettings.builder()
			.pollInterval(Duration.ofMillis(50))
			.leaseDuration(Duration.ofSeconds(30))
			.shutdownTimeout(Duration.ofSeconds(10))
			.defaultConcurrency(4)
			.retryPolicy(FAST_RETRIES);
	}

	/**
	 * Starts a Manager on the fixture's pool, as this queue's instance: woken by its enqueues,
	 * told of its cancels, and telling its awaiter of finished jobs.
	 */
	public Manager startManager(UnaryOperator<ManagerSettings.Builder> settings) {
		return startManager(this.store, settings.apply(fastSettings()).build(), 64);
	}

	/**
	 * Starts a Manager as a separate instance: its own pool of connections, scheduler and
	 * workers. It is woken by this queue's enqueues (to keep tests quick), but hears of cancels
	 * and tells of finished jobs only through the database.
	 */
	public Manager startInstance(UnaryOperator<ManagerSettings.Builder> settings, DataSource dataSource) {
		Manager manager = new Manager(newStore(dataSource), this.handlers, this.codec,
				settings.apply(fastSettings()).build(), scheduler(), workerExecutor(64), this.listener);
		return start(manager);
	}

	public Manager startManager(JobStore store, ManagerSettings settings, int workerThreads) {
		Manager manager = new Manager(store, this.handlers, this.codec, settings, scheduler(),
				workerExecutor(workerThreads), JobListener.all(List.of(this.listener, this.awaiter)));
		this.queue.addCancelListener(manager::cancelRequested);
		return start(manager);
	}

	private Manager start(Manager manager) {
		this.closeables.add(0, manager::stop);
		manager.start();
		this.queue.addEnqueueListener(manager::wakeUp);
		this.flowControl.addChangeListener(manager::wakeUp);
		return manager;
	}

	public Reaper reaper(JobStore store) {
		return new Reaper(store, scheduler(), Duration.ofHours(1), JobListener.all(List.of(this.listener, this.awaiter)));
	}

	/** What the queue, the Managers and the reapers of this fixture told their listener. */
	public RecordingJobListener listener() {
		return this.listener;
	}

	public ThreadPoolTaskScheduler scheduler() {
		ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler();
		scheduler.setPoolSize(2);
		scheduler.setThreadNamePrefix("test-scheduler-");
		scheduler.initialize();
		this.closeables.add(scheduler::shutdown);
		return scheduler;
	}

	public ThreadPoolTaskExecutor workerExecutor(int threads) {
		ThreadPoolTaskExecutor executor = new ThreadPoolTaskExecutor();
		executor.setCorePoolSize(threads);
		executor.setMaxPoolSize(threads);
		executor.setThreadNamePrefix("test-worker-");
		executor.initialize();
		this.closeables.add(executor::shutdown);
		return executor;
	}

	public JobRecord job(long id) {
		return this.store.find(id).orElseThrow(() -> new AssertionError("No job " + id));
	}

	public JobStatus status(long id) {
		return job(id).status();
	}

	public int count(String where) {
		Integer count = jdbc().queryForObject("SELECT COUNT(*) FROM " + table() + " WHERE " + where, Integer.class);
		assertThat(count).isNotNull();
		return count;
	}

	public String table() {
		return (this.database.schema() != null) ? this.database.schema() + ".queue_job" : "queue_job";
	}

	@Override
	public void close() throws Exception {
		for (AutoCloseable closeable : this.closeables) {
			closeable.close();
		}
		this.closeables.clear();
	}

}
