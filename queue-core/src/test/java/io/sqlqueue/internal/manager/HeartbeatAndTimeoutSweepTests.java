package io.sqlqueue.internal.manager;

import java.time.Duration;
import java.time.Instant;
import java.util.AbstractCollection;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import io.sqlqueue.JobListener;
import io.sqlqueue.JobRecord;
import io.sqlqueue.JobStatus;
import io.sqlqueue.PayloadCodec;
import io.sqlqueue.handler.HandlerDefinition;
import io.sqlqueue.internal.store.ClaimRequest;
import io.sqlqueue.test.QueueFixture;
import io.sqlqueue.test.TestDatabase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The heartbeat and the timeout sweep stepped one pass at a time, as the reaper is: no
 * waiting for their schedules, which are not started here.
 */
class HeartbeatAndTimeoutSweepTests {

	private static final Duration LEASE = Duration.ofSeconds(30);

	private TestDatabase.Isolated database;

	private QueueFixture fixture;

	private OutcomeRecorder recorder;

	@BeforeEach
	void setUp() {
		this.database = TestDatabase.H2.isolated();
		this.fixture = new QueueFixture(this.database, this.database.dialect().claimMethod(),
				new PayloadCodec(JsonMapper.builder().build(), 4096));
		this.recorder = new OutcomeRecorder(this.fixture.store(), QueueFixture.FAST_RETRIES, JobListener.NONE);
	}

	@AfterEach
	void tearDown() throws Exception {
		this.fixture.close();
		this.database.close();
	}

	@Test
	void aHeartbeatStepExtendsTheLeasesHeldAndHandsOnTheCancelsAskedFor() throws Exception {
		this.fixture.register(HandlerDefinition.of("slow", "default", (payload, context) -> null));
		Attempt attempt = claim("slow");
		Instant claimed = this.fixture.job(attempt.job.id()).leaseExpiresAt();
		Set<Long> cancels = ConcurrentHashMap.newKeySet();
		Heartbeat heartbeat = new Heartbeat(this.fixture.store(), QueueFixture.fastSettings().build(), Set.of(attempt),
				this.recorder, this.fixture.scheduler(), cancels::addAll);
		Thread.sleep(20);

		assertThat(heartbeat.runOnce()).isEqualTo(1);
		assertThat(this.fixture.job(attempt.job.id()).leaseExpiresAt()).isAfter(claimed);
		assertThat(heartbeat.isRunning()).as("stepped, never scheduled").isFalse();

		assertThat(this.fixture.queue().cancel(attempt.job.id())).isTrue();
		heartbeat.runOnce();
		await().atMost(Duration.ofSeconds(10)).until(() -> cancels.contains(attempt.job.id()));
		assertThat(this.recorder.leaseLosses()).isZero();
	}

	/**
	 * A stop gives back the attempts claimed ahead while the heartbeat's beat is under way: the
	 * beat finds their rows queued again, which is the give-back, not a lost lease.
	 */
	@Test
	void anAttemptGivenBackUnstartedWhileABeatIsUnderWayIsNotALostLease() {
		this.fixture.register(HandlerDefinition.of("ahead", "default", (payload, context) -> null));
		Attempt attempt = claim("ahead");
		// The beat reads the attempts, then the stop gives this one back before the beat writes.
		Collection<Attempt> givenBackMeanwhile = new AbstractCollection<>() {
			@Override
			public Iterator<Attempt> iterator() {
				List<Attempt> read = List.of(attempt);
				assertThat(attempt.release()).isTrue();
				this.release(attempt);
				return read.iterator();
			}

			private void release(Attempt given) {
				HeartbeatAndTimeoutSweepTests.this.fixture.store().release(given.lease);
			}

			@Override
			public int size() {
				return 1;
			}
		};
		Heartbeat heartbeat = new Heartbeat(this.fixture.store(), QueueFixture.fastSettings().build(),
				givenBackMeanwhile, this.recorder, this.fixture.scheduler(), (cancels) -> {
				});

		assertThat(heartbeat.runOnce()).isZero();
		assertThat(this.fixture.status(attempt.job.id())).isEqualTo(JobStatus.QUEUED);
		assertThat(this.recorder.leaseLosses()).as("leases counted lost").isZero();
		// A beat after the give-back leaves the attempt out.
		Heartbeat later = new Heartbeat(this.fixture.store(), QueueFixture.fastSettings().build(), Set.of(attempt),
				this.recorder, this.fixture.scheduler(), (cancels) -> {
				});
		assertThat(later.runOnce()).isZero();
		assertThat(this.recorder.leaseLosses()).as("leases counted lost").isZero();
	}

	@Test
	void aTimeoutSweepStepFailsAnAttemptPastItsTimeoutOnceAndInterruptsItsHandler() throws Exception {
		this.fixture.register(new HandlerDefinition("stuck", "default", null, Duration.ofMillis(50), Set.of(),
				(payload, context) -> null, "stuck"));
		Attempt attempt = claim("stuck");
		CountDownLatch interrupted = new CountDownLatch(1);
		Thread worker = new Thread(() -> {
			attempt.start();
			try {
				Thread.sleep(60_000);
			}
			catch (InterruptedException ex) {
				interrupted.countDown();
			}
		});
		worker.start();
		TimeoutSweep sweep = new TimeoutSweep(this.fixture.scheduler(), this.fixture.handlers(), Duration.ofMinutes(10),
				Set.of(attempt), this.recorder);
		try {
			await().atMost(Duration.ofSeconds(10)).until(() -> attempt.runningFor().toMillis() > 100);

			assertThat(sweep.runOnce()).isEqualTo(1);
			assertThat(sweep.runOnce()).as("settled once").isZero();
			assertThat(interrupted.await(10, TimeUnit.SECONDS)).isTrue();
			await().atMost(Duration.ofSeconds(10)).until(() -> this.fixture.status(attempt.job.id()) == JobStatus.QUEUED);
			assertThat(this.fixture.job(attempt.job.id()).lastError()).contains("JobTimeoutException");
			assertThat(sweep.isRunning()).as("stepped, never scheduled").isFalse();
		}
		finally {
			worker.interrupt();
			worker.join();
		}
	}

	private Attempt claim(String handler) {
		this.fixture.queue().enqueue(handler, null);
		long sent = System.nanoTime();
		List<JobRecord> claimed = this.fixture.store()
			.claim(new ClaimRequest("test-worker", "default", List.of(handler), 1, LEASE.toMillis()));
		assertThat(claimed).hasSize(1);
		return new Attempt(claimed.get(0), this.fixture.handlers().find(handler).orElseThrow(),
				new Lane("default", 1, 0), sent, LEASE);
	}

}
