package io.sqlqueue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;

import io.sqlqueue.Batch;
import io.sqlqueue.BatchIds;
import io.sqlqueue.handler.HandlerDefinition;
import io.sqlqueue.handler.JobInvoker;
import io.sqlqueue.internal.store.ClaimMethod;
import io.sqlqueue.test.OpenTransaction;
import io.sqlqueue.test.QueueFixture;
import io.sqlqueue.test.TestDatabase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The completion flush passes over a finished job whose row a caller's open transaction
 * holds, or whose settling needs a row it holds, and writes it at a later flush: the other
 * completions of the flush are recorded meanwhile, and the workers, whose finished jobs wait
 * for room to be recorded, go on running jobs. Run by every {@link QueueConformanceTests}.
 * SQLite has no row locks: a caller's open write transaction holds the whole database there,
 * and the busy timeout bounds it.
 */
interface CompletionFlushConformance extends ConformanceSupport {

	Duration FLUSH_WAIT = Duration.ofSeconds(30);

	/** Few workers and a small batch: a flush that waited would take all the room at once. */
	int FLUSH_WORKERS = 2;

	/** A running job's row, held by a caller that enqueues a job after it while the job ends. */
	@Test
	default void aFinishedJobHeldByACallerIsRecordedLaterAndHoldsBackNoOtherCompletion() throws Exception {
		assumeRowLocks();
		Flushes flushes = new Flushes(fixture());
		long held = fixture().queue().enqueue(Job.of("ends", "held"));
		flushes.awaitStarted();
		try (OpenTransaction<Long> caller = OpenTransaction.begin(isolatedDatabase().dataSource(),
				() -> fixture().queue().enqueue(Job.of("quick", "dependent").after(held)))) {
			long dependent = caller.result();
			flushes.end();
			flushes.othersAreRecorded();
			assertThat(fixture().status(held)).as("passed over, not lost").isEqualTo(JobStatus.RUNNING);
			caller.commit();
			flushes.awaitRecorded(held);
			flushes.awaitRecorded(dependent);
			assertThat(flushes.runs(held)).as("the held job ran once").isEqualTo(1);
			assertThat(fixture().job(held).attempts()).isEqualTo(1);
		}
	}

	/** A batch's row, held by a caller's locking read while a member ends (its end settles the batch). */
	@Test
	default void aFinishedJobWhoseBatchACallerHoldsIsRecordedLaterAndHoldsBackNoOtherCompletion() throws Exception {
		assumeRowLocks();
		Flushes flushes = new Flushes(fixture());
		BatchIds batch = fixture().queue()
			.enqueue(Batch.of(List.of(Job.of("ends", "member"))).callback(Job.of("quick", "callback")));
		long member = batch.jobIds().get(0);
		flushes.awaitStarted();
		String row = "id = " + batch.batchId();
		try (OpenTransaction<Integer> caller = OpenTransaction.begin(isolatedDatabase().dataSource(),
				() -> fixture().jdbc()
					.queryForList("SELECT 1 FROM " + table("queue_batch") + " WHERE " + row + " FOR UPDATE",
							Integer.class)
					.size())) {
			assertThat(caller.result()).isEqualTo(1);
			flushes.end();
			flushes.othersAreRecorded();
			assertThat(fixture().status(member)).as("passed over, not lost").isEqualTo(JobStatus.RUNNING);
			caller.commit();
			flushes.awaitRecorded(member);
			flushes.awaitRecorded(batch.callbackId());
			assertThat(flushes.runs(member)).as("the member ran once").isEqualTo(1);
		}
	}

	/**
	 * A Manager with two workers and room for two finished jobs, running a job that ends when
	 * told ({@code ends}) and quick ones. A flush waits a second for a second completion, so
	 * that the held job's is written with a quick job's: a flush that waited for the held row
	 * would take all the room, and no worker could end another job.
	 */
	final class Flushes {

		private final QueueFixture fixture;

		private final CountDownLatch started = new CountDownLatch(1);

		private final CountDownLatch end = new CountDownLatch(1);

		private final Map<Long, AtomicInteger> runs = new ConcurrentHashMap<>();

		Flushes(QueueFixture fixture) {
			this.fixture = fixture;
			handle("ends", (payload, context) -> {
				ran(context.jobId());
				this.started.countDown();
				return this.end.await(FLUSH_WAIT.toMillis(), TimeUnit.MILLISECONDS);
			});
			handle("quick", (payload, context) -> ran(context.jobId()));
			fixture.startManager(fixture.store(), QueueFixture.fastSettings()
				.defaultConcurrency(FLUSH_WORKERS)
				.completionBatchSize(2)
				.completionLinger(Duration.ofSeconds(1))
				.build(), FLUSH_WORKERS);
		}

		private void handle(String name, JobInvoker invoker) {
			this.fixture.register(HandlerDefinition.of(name, "default", invoker));
		}

		private Object ran(long id) {
			this.runs.computeIfAbsent(id, (key) -> new AtomicInteger()).incrementAndGet();
			return null;
		}

		int runs(long id) {
			AtomicInteger count = this.runs.get(id);
			return (count != null) ? count.get() : 0;
		}

		void awaitStarted() throws InterruptedException {
			assertThat(this.started.await(FLUSH_WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
		}

		/** The job that was told to end returns. */
		void end() {
			this.end.countDown();
		}

		/** Quick jobs enqueued now run and are recorded, many flushes' worth, while the held one waits. */
		void othersAreRecorded() {
			List<Long> others = this.fixture.queue()
				.enqueueAll(IntStream.range(0, 20).mapToObj((i) -> Job.of("quick", i)).toList());
			others.forEach(this::awaitRecorded);
		}

		void awaitRecorded(long id) {
			await().atMost(Duration.ofSeconds(15))
				.pollInterval(Duration.ofMillis(20))
				.until(() -> runs(id) > 0 && this.fixture.status(id) == JobStatus.SUCCEEDED);
		}

	}

}
