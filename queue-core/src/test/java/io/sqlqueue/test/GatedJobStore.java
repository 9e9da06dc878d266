package io.sqlqueue.test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

import org.jspecify.annotations.Nullable;

import io.sqlqueue.JobStatus;
import io.sqlqueue.ReapedJob;
import io.sqlqueue.internal.flow.FlowClaim;
import io.sqlqueue.internal.store.ClaimRequest;
import io.sqlqueue.internal.store.ClaimResult;
import io.sqlqueue.internal.store.CompletedJobs;
import io.sqlqueue.internal.store.Completion;
import io.sqlqueue.internal.store.JobStore;
import io.sqlqueue.internal.store.PrunedJobs;
import io.sqlqueue.internal.store.QueueCount;

/**
 * The real store, whose claims, completion writes, reaps, prunes and counts can be made to wait at a
 * {@link Gate} before they reach the database: a background loop held inside one of them,
 * as a caller's row lock holds it inside a statement, without depending on how each
 * database locks.
 */
public final class GatedJobStore extends JobStore {

	/** Claims, by the poll loop or by a worker. */
	public final Gate claims = new Gate();

	/** Completion writes (a flush of finished jobs). */
	public final Gate completions = new Gate();

	/** Reaper passes over expired leases. */
	public final Gate reaps = new Gate();

	/** Pruner passes. */
	public final Gate prunes = new Gate();

	/** Counts of the jobs per queue and state (a count held there is a slow count). */
	public final Gate counts = new Gate();

	public GatedJobStore(QueueFixture fixture) {
		super(fixture.database().dataSource(), fixture.database().dialect(), fixture.database().schema(),
				fixture.store().claimMethod(), null, FlowClaim::new);
	}

	@Override
	public ClaimResult claimJobs(ClaimRequest request) {
		this.claims.pass();
		try {
			return super.claimJobs(request);
		}
		finally {
			this.claims.passed();
		}
	}

	@Override
	public CompletedJobs completeUnlessHeld(List<Completion> completions) {
		this.completions.pass();
		return super.completeUnlessHeld(completions);
	}

	@Override
	public List<ReapedJob> reapExpired(int limit, int maxCrashes) {
		this.reaps.pass();
		return super.reapExpired(limit, maxCrashes);
	}

	@Override
	public PrunedJobs pruneFinished(JobStatus status, Duration age, @Nullable Instant from, int limit) {
		this.prunes.pass();
		return super.pruneFinished(status, age, from, limit);
	}

	@Override
	public List<QueueCount> countsByQueue() {
		this.counts.pass();
		return super.countsByQueue();
	}

	/**
	 * Once armed, holds the calls of the threads it names until opened; counts the calls held,
	 * and those that went on after being held.
	 */
	public static final class Gate {

		private volatile Predicate<Thread> holds = (thread) -> false;

		private volatile CountDownLatch open = new CountDownLatch(0);

		private final AtomicInteger held = new AtomicInteger();

		private final AtomicInteger heldAndPassed = new AtomicInteger();

		private final ThreadLocal<Boolean> wasHeld = ThreadLocal.withInitial(() -> false);

		/** Holds every call from now on, until {@link #open()}. */
		public void arm() {
			arm((thread) -> true);
		}

		/** Holds the calls of the threads {@code holds} names, until {@link #open()}. */
		public void arm(Predicate<Thread> holds) {
			this.open = new CountDownLatch(1);
			this.holds = holds;
		}

		public void open() {
			this.holds = (thread) -> false;
			this.open.countDown();
		}

		/** Calls held so far (waiting now, or let go). */
		public int held() {
			return this.held.get();
		}

		/** Held calls that went on and returned from the database. */
		public int heldAndPassed() {
			return this.heldAndPassed.get();
		}

		void pass() {
			if (!this.holds.test(Thread.currentThread())) {
				return;
			}
			// Read after the predicate: arm() sets the latch first.
			CountDownLatch open = this.open;
			this.held.incrementAndGet();
			this.wasHeld.set(true);
			try {
				if (!open.await(60, TimeUnit.SECONDS)) {
					throw new IllegalStateException("Gate not opened within 60 s");
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted at the gate", ex);
			}
		}

		void passed() {
			if (this.wasHeld.get()) {
				this.wasHeld.set(false);
				this.heldAndPassed.incrementAndGet();
			}
		}

	}

}
