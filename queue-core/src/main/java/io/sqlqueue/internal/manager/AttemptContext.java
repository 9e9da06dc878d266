package io.sqlqueue.internal.manager;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

import org.jspecify.annotations.Nullable;

import io.sqlqueue.BatchProgress;
import io.sqlqueue.JobContext;
import io.sqlqueue.LeaseLostException;
import io.sqlqueue.PayloadCodec;
import io.sqlqueue.internal.store.ExtendedLeases;
import io.sqlqueue.internal.store.JobStore;

/** What a handler knows of the attempt it runs in, whether a worker or the caller's thread runs it. */
final class AttemptContext implements JobContext {

	private final Attempt attempt;

	private final JobStore store;

	private final OutcomeRecorder recorder;

	private final Duration leaseDuration;

	private final DurableSteps steps;

	AttemptContext(Attempt attempt, JobStore store, PayloadCodec codec, OutcomeRecorder recorder,
			Duration leaseDuration) {
		this.attempt = attempt;
		this.steps = new DurableSteps(attempt, store, codec);
		this.store = store;
		this.recorder = recorder;
		this.leaseDuration = leaseDuration;
	}

	@Override
	public long jobId() {
		return this.attempt.job.id();
	}

	@Override
	public String handler() {
		return this.attempt.job.handler();
	}

	@Override
	public String queue() {
		return this.attempt.job.queue();
	}

	@Override
	public int attempt() {
		return this.attempt.job.attempts();
	}

	@Override
	public int maxAttempts() {
		return this.attempt.job.maxAttempts();
	}

	@Override
	public @Nullable String concurrencyKey() {
		return this.attempt.job.concurrencyKey();
	}

	@Override
	public @Nullable Instant scheduledFor() {
		return this.attempt.job.scheduledFor();
	}

	@Override
	public boolean isCancellationRequested() {
		return this.attempt.isCancelRequested();
	}

	@Override
	public Optional<BatchProgress> batch() {
		return this.store.workflows().batchOf(this.attempt.job.id());
	}

	@Override
	public void extendLease() {
		long sent = System.nanoTime();
		ExtendedLeases leases = this.store.extendLeases(List.of(this.attempt.lease), this.leaseDuration);
		if (!leases.lost().isEmpty()) {
			this.recorder.leaseLost(this.attempt, "extendLease");
			throw new LeaseLostException(this.attempt.job.id());
		}
		if (leases.extended().contains(this.attempt.lease)) {
			this.attempt.leaseExtended(sent, this.leaseDuration);
		}
	}

	@Override
	public <T> @Nullable T step(String name, Class<T> type, StepBody<T> body) throws Exception {
		return this.steps.step(name, type, body, false);
	}

	@Override
	public <T> @Nullable T transactionalStep(String name, Class<T> type, StepBody<T> body) throws Exception {
		return this.steps.step(name, type, body, true);
	}

	@Override
	public void sleep(Duration duration) {
		this.steps.sleep(duration);
	}

	@Override
	public void sleepUntil(Instant time) {
		this.steps.sleepUntil(time);
	}

	@Override
	public void snooze(Duration delay) {
		this.steps.snooze(delay);
	}

	@Override
	public <T> Optional<T> awaitSignal(String name, Class<T> type, Duration timeout) {
		return this.steps.awaitSignal(name, type, timeout);
	}

	@Override
	public boolean patched(String name) {
		return this.steps.patched(name);
	}

	/**
	 * The handler returned: throws {@link io.sqlqueue.ReplayMismatchException} when its run
	 * left records of earlier runs unreplayed (a call the code no longer makes), or met a
	 * mismatch that the handler caught; the attempt then fails instead of succeeding.
	 */
	void handlerReturning() {
		this.steps.handlerReturning();
	}

}
