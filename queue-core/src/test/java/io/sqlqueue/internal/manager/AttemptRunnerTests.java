package io.sqlqueue.internal.manager;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;
import tools.jackson.databind.json.JsonMapper;

import io.sqlqueue.JobListener;
import io.sqlqueue.JobOutcome;
import io.sqlqueue.JobRecord;
import io.sqlqueue.NonRetryableException;
import io.sqlqueue.PayloadCodec;
import io.sqlqueue.handler.HandlerDefinition;
import io.sqlqueue.handler.JobInvoker;
import io.sqlqueue.observation.JobObservations;
import io.sqlqueue.test.QueueFixture;
import io.sqlqueue.test.TestDatabase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The test kit's {@link JobRunner} runs an attempt as the Manager's workers do, because both
 * go through the one {@link AttemptRunner}: the same MDC while the handler and the listener
 * run, the listener told of the start inside the attempt's observation, the same events in
 * the same order. (Before, the runner told the listener before the observation began and set
 * no MDC.)
 */
class AttemptRunnerTests {

	private TestDatabase.Isolated database;

	private QueueFixture fixture;

	private final List<String> events = Collections.synchronizedList(new ArrayList<>());

	private final ThreadLocal<Boolean> observed = ThreadLocal.withInitial(() -> false);

	@BeforeEach
	void setUp() {
		this.database = TestDatabase.H2.isolated();
		this.fixture = new QueueFixture(this.database, this.database.dialect().claimMethod(),
				new PayloadCodec(JsonMapper.builder().build(), 4096));
	}

	@AfterEach
	void tearDown() throws Exception {
		this.fixture.close();
		this.database.close();
	}

	@Test
	void aFailureRunsTheSameWayInTheTestKitAsOnAWorker() {
		handler((payload, context) -> {
			this.events.add("handler, MDC " + mdcHolds(context.jobId()) + ", observed " + this.observed.get());
			throw new NonRetryableException("no");
		});

		List<String> worker = onWorker();
		List<String> testKit = inTestKit();

		assertThat(worker).containsExactly("observation started", "started, MDC true, observed true",
				"handler, MDC true, observed true", "observation error", "finished FAILED",
				"observation stopped FAILED");
		assertThat(testKit).isEqualTo(worker);
	}

	@Test
	void aSuccessRunsTheSameWayInTheTestKitAsOnAWorker() {
		handler((payload, context) -> {
			this.events.add("handler, MDC " + mdcHolds(context.jobId()) + ", observed " + this.observed.get());
			return null;
		});

		List<String> worker = onWorker();
		List<String> testKit = inTestKit();

		// A worker's success is recorded by a flush of the Completer, which may come before or
		// after its observation stopped; the test kit's at once, so that its caller reads the
		// outcome: only that event may move.
		List<String> started = List.of("observation started", "started, MDC true, observed true",
				"handler, MDC true, observed true");
		assertThat(worker.subList(0, 3)).isEqualTo(started);
		assertThat(worker.subList(3, worker.size())).containsExactlyInAnyOrder("observation stopped SUCCEEDED",
				"finished SUCCEEDED");
		assertThat(testKit).containsExactly("observation started", "started, MDC true, observed true",
				"handler, MDC true, observed true", "finished SUCCEEDED", "observation stopped SUCCEEDED");
	}

	private void handler(JobInvoker invoker) {
		this.fixture.register(HandlerDefinition.of("traced", "default", invoker));
	}

	private List<String> onWorker() {
		Manager manager = new Manager(this.fixture.store(), this.fixture.handlers(), this.fixture.codec(),
				QueueFixture.fastSettings().build(), this.fixture.scheduler(), this.fixture.workerExecutor(1),
				listener(), observations());
		manager.start();
		try {
			this.fixture.queue().enqueue("traced", null);
			await().atMost(Duration.ofSeconds(30)).until(() -> this.events.stream().anyMatch((e) -> e.startsWith("finished"))
					&& this.events.stream().anyMatch((e) -> e.startsWith("observation stopped")));
		}
		finally {
			manager.stop();
		}
		return taken();
	}

	private List<String> inTestKit() {
		this.fixture.queue().enqueue("traced", null);
		JobRunner runner = new JobRunner(this.fixture.store(), this.fixture.handlers(), this.fixture.codec(),
				QueueFixture.fastSettings().build(), listener(), observations());
		assertThat(runner.runDue("default", 1)).hasSize(1);
		return taken();
	}

	private List<String> taken() {
		synchronized (this.events) {
			List<String> taken = List.copyOf(this.events);
			this.events.clear();
			return taken;
		}
	}

	private static boolean mdcHolds(long jobId) {
		return String.valueOf(jobId).equals(MDC.get("sqlqueue.jobId"));
	}

	private JobListener listener() {
		return new JobListener() {

			@Override
			public void started(JobRecord job, Duration waited) {
				AttemptRunnerTests.this.events
					.add("started, MDC " + mdcHolds(job.id()) + ", observed " + AttemptRunnerTests.this.observed.get());
			}

			@Override
			public void finished(JobRecord job, JobOutcome outcome, Duration took) {
				AttemptRunnerTests.this.events.add("finished " + outcome);
			}

		};
	}

	private JobObservations observations() {
		return new JobObservations() {

			@Override
			public Attempt attemptStarted(JobRecord job) {
				AttemptRunnerTests.this.observed.set(true);
				AttemptRunnerTests.this.events.add("observation started");
				return new Attempt() {

					@Override
					public void error(Throwable error) {
						AttemptRunnerTests.this.events.add("observation error");
					}

					@Override
					public void stop(@Nullable JobOutcome outcome) {
						AttemptRunnerTests.this.observed.remove();
						AttemptRunnerTests.this.events.add("observation stopped " + outcome);
					}

				};
			}

		};
	}

}
