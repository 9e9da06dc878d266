package io.sqlqueue;

import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingReceiverTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingSenderTracingObservationHandler;
import io.micrometer.tracing.test.simple.SimpleSpan;
import io.micrometer.tracing.test.simple.SimpleTracer;
import io.sqlqueue.PayloadCodec;
import io.sqlqueue.handler.HandlerDefinition;
import io.sqlqueue.handler.RetryPolicy;
import io.sqlqueue.internal.DefaultJobQueue;
import io.sqlqueue.internal.await.JobAwaiter;
import io.sqlqueue.internal.handler.MethodJobInvoker;
import io.sqlqueue.internal.maintenance.Reaper;
import io.sqlqueue.internal.manager.JobRunner;
import io.sqlqueue.internal.manager.Manager;
import io.sqlqueue.internal.schedule.DefaultSchedules;
import io.sqlqueue.internal.store.Backlog;
import io.sqlqueue.internal.store.ClaimMethod;
import io.sqlqueue.internal.store.ClaimRequest;
import io.sqlqueue.internal.store.CompletedJobs;
import io.sqlqueue.internal.store.Completion;
import io.sqlqueue.internal.store.JobBrowser;
import io.sqlqueue.admin.JobFilter;
import io.sqlqueue.admin.JobPage;
import io.sqlqueue.internal.store.JobStore;
import io.sqlqueue.admin.JobSummary;
import io.sqlqueue.internal.store.Lease;
import io.sqlqueue.internal.store.NewJob;
import io.sqlqueue.internal.store.QueueCount;
import io.sqlqueue.internal.store.ScheduleRow;
import io.sqlqueue.internal.store.ScheduleStore;
import io.sqlqueue.observation.JobObservations;
import io.sqlqueue.observation.MicrometerJobObservations;
import io.sqlqueue.schedule.FiredTick;
import io.sqlqueue.schedule.MisfirePolicy;
import io.sqlqueue.schedule.OverlapPolicy;
import io.sqlqueue.schedule.Recurrence;
import io.sqlqueue.schedule.ScheduleDefinition;
import io.sqlqueue.schedule.ScheduleRecord;
import io.sqlqueue.schedule.ScheduleSource;
import io.sqlqueue.schedule.Schedules;
import io.sqlqueue.test.OpenTransaction;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;
import io.sqlqueue.test.QueueFixture;
import io.sqlqueue.test.TestDatabase;
import io.sqlqueue.test.TestPropagator;

/**
 * The behaviour every database and claim method must show, with real connections and real
 * threads. Each entity's tests are the default methods of one interface, which this class
 * implements: so each subclass runs all of them, each test on a fresh database of its own.
 * A subclass names the database; it adds tests only for what is its own.
 * <ul>
 * <li>jobs: {@link EnqueueConformance}, {@link ClaimConformance}, {@link RetryConformance},
 * {@link DurableStepsConformance},
 * {@link TransactionalHandlerConformance}, {@link BadInputConformance},
 * {@link UnknownHandlerConformance}</li>
 * <li>ends: {@link AwaitConformance}, {@link CancelConformance}, {@link LeaseConformance},
 * {@link CompletionConformance}, {@link CompletionFlushConformance}</li>
 * <li>order and limits: {@link GroupConformance}, {@link FlowControlConformance},
 * {@link WorkflowConformance}, {@link BatchConformance}, {@link ScheduleConformance}</li>
 * <li>instances: {@link ShutdownConformance}, {@link ManagerLoopsConformance},
 * {@link CallerLockConformance}, {@link PauseConformance}, {@link InstancesConformance}</li>
 * <li>operating many jobs: {@link SearchConformance}, {@link BulkConformance}</li>
 * <li>reading and keeping: {@link ObservationConformance}, {@link BrowseConformance},
 * {@link RetentionConformance}, {@link JobRunnerConformance}, {@link TableHealthConformance},
 * {@link HistoryConformance}, {@link AuditConformance}, {@link SharedCountsConformance},
 * {@link ReadReplicaConformance}</li>
 * </ul>
 * Their helpers are in {@link ConformanceSupport}.
 */
public abstract class QueueConformanceTests implements EnqueueConformance, ClaimConformance, RetryConformance,
		TransactionalHandlerConformance, BadInputConformance, UnknownHandlerConformance, AwaitConformance,
		CancelConformance, LeaseConformance, CompletionConformance, CompletionFlushConformance, GroupConformance,
		FlowControlConformance, FairTurnsConformance, DurableStepsConformance, WorkflowConformance, BatchConformance, ScheduleConformance, ShutdownConformance,
		ManagerLoopsConformance, CallerLockConformance, ObservationConformance, BrowseConformance,
		RetentionConformance, JobRunnerConformance, TableHealthConformance, PauseConformance, InstancesConformance,
		HistoryConformance, AuditConformance, SearchConformance, BulkConformance, SharedCountsConformance,
		ReadReplicaConformance {

	/** For the subclasses' own tests (several of the interfaces have a WAIT of their own). */
	protected static final Duration WAIT = Duration.ofSeconds(30);

	protected TestDatabase.Isolated database;

	protected QueueFixture fixture;

	protected abstract TestDatabase database();

	protected ClaimMethod claimMethod() {
		return database().dialect().claimMethod();
	}

	/** Jobs the concurrency test drains. */
	@Override
	public int concurrencyJobs() {
		return 2_000;
	}

	@BeforeEach
	void setUp() {
		this.database = database().isolated();
		this.fixture = new QueueFixture(this.database, claimMethod(), new PayloadCodec(
				tools.jackson.databind.json.JsonMapper.builder().build(), 4096));
	}

	@AfterEach
	void tearDown() throws Exception {
		// Null when set-up was skipped (no server) or failed.
		if (this.fixture != null) {
			this.fixture.close();
		}
		if (this.database != null) {
			this.database.close();
		}
	}

	@Override
	public QueueFixture fixture() {
		return this.fixture;
	}

	@Override
	public TestDatabase.Isolated isolatedDatabase() {
		return this.database;
	}

}
