package io.sqlqueue.internal.manager;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import org.springframework.dao.DuplicateKeyException;

import io.sqlqueue.JobContext;
import io.sqlqueue.JobContext.StepBody;
import io.sqlqueue.JobStep;
import io.sqlqueue.LeaseLostException;
import io.sqlqueue.Names;
import io.sqlqueue.PayloadCodec;
import io.sqlqueue.internal.store.JobStore;
import io.sqlqueue.internal.store.StepStore;

/**
 * One run's side of a job's durable progress (docs/durable-steps.md): replays what earlier
 * runs recorded (read once, on first use) and records what this run does, for the
 * {@link AttemptContext}.
 * <p>
 * A handler may call steps from threads of its own ({@code CompletableFuture.supplyAsync(() ->
 * context.step(…))}): the run's state is guarded by this object's monitor, which is never held
 * while a body runs or the database is written, so steps of several threads run their bodies at
 * once. Two calls of one step (one name) do not: the second waits for the first, then returns its
 * record (or runs the body itself, if the first's failed). Parks are the handler's thread's only
 * (a park unwinds the thread that calls it, and only the handler's ends the run), and only when no
 * step of another thread runs; in the queue's transactional handler steps are the handler's
 * thread's too, as its transaction is.
 */
final class DurableSteps {

	static final String STEP = "step";

	static final String SLEEP = "sleep";

	static final String SIGNAL = "signal";

	static final String PATCH = "patch";

	private final Attempt attempt;

	private final StepStore steps;

	private final PayloadCodec codec;

	/** The records of earlier runs and this one, by kind and name, in the order they were written; read on first use. */
	private @Nullable Map<String, JobStep> records;

	/** The sleeps this run has reached: the next one's name is one more. */
	private int sleeps;

	/** The names of the steps whose bodies run now, on any thread. */
	private final Set<String> running = new HashSet<>();

	/** The threads that run a step's body now: a step there would nest. */
	private final Set<Thread> inStep = new HashSet<>();

	/** The thread that runs the handler: the one a park can unwind. */
	private final Thread handlerThread;

	/** This run's calls checked against the records of earlier runs, read with {@link #records}; under the monitor. */
	private final ReplayOrder order;

	/** The steps' results, encoded, counted and decoded. */
	private final StepResults results;

	/** The durable calls this run has made (steps, sleeps, waits, patch markers), for the errors' words. */
	private int calls;

	/** The answers {@link #patched} gave in this run, by name. */
	private final Map<String, Boolean> patches = new HashMap<>();

	/** Made on the thread that runs the handler, before it does. */
	DurableSteps(Attempt attempt, JobStore store, PayloadCodec codec) {
		this.handlerThread = Thread.currentThread();
		this.attempt = attempt;
		this.steps = store.steps();
		this.codec = codec;
		this.order = new ReplayOrder(attempt.job.id(), this.handlerThread);
		this.results = new StepResults(attempt.job.id(), store, codec);
	}

	<T> @Nullable T step(String name, Class<T> type, StepBody<T> body, boolean transactional) throws Exception {
		checkRunning();
		Objects.requireNonNull(type, "type");
		requireName("step", name);
		if (this.attempt.handler.transactional() && Thread.currentThread() != this.handlerThread) {
			throw new IllegalStateException("Step '" + name + "' was called from another thread than the handler's: "
					+ "handler '" + this.attempt.job.handler() + "' is transactional, and its steps join its "
					+ "transaction, which is the handler's thread's");
		}
		records();
		Thread thread = Thread.currentThread();
		JobStep recorded;
		synchronized (this) {
			if (this.inStep.contains(thread)) {
				throw new IllegalStateException(
						"Step '" + name + "' was called in the body of another step: steps do not nest");
			}
			// One body per step at a time: the second call waits for the first's record.
			while (this.running.contains(name)) {
				wait();
			}
			int call = ++this.calls;
			recorded = this.records.get(key(STEP, name));
			if (recorded == null) {
				this.order.checkNew("step '" + name + "'", call);
				checkRoom();
				this.running.add(name);
				this.inStep.add(thread);
			}
			else {
				this.order.met(key(STEP, name), "step '" + name + "'", call);
			}
		}
		if (recorded != null) {
			return this.results.decode(Objects.requireNonNull(recorded.result()), type, "step '" + name + "'");
		}
		try {
			// In a transactional handler the record joins the handler's transaction, which
			// commits with the job's completion, fenced by the lease: that is a transactional step.
			// Elsewhere records are written in transactions of their own (see own), never in one
			// the queue does not own, such as a Spring transaction the handler runs in.
			return (transactional && !this.attempt.handler.transactional()) ? runInTransaction(name, type, body)
					: runAndRecord(name, type, body);
		}
		catch (RecordedElsewhere ex) {
			// A run that had lost the job recorded the step first: the record is the step's result.
			return replayRecordedElsewhere(name, type);
		}
		finally {
			synchronized (this) {
				this.running.remove(name);
				this.inStep.remove(thread);
				notifyAll();
			}
		}
	}

	private <T> @Nullable T runAndRecord(String name, Class<T> type, StepBody<T> body) throws Exception {
		T result = body.run();
		String json = this.results.encode(name, result);
		boolean recorded = false;
		try {
			own(() -> {
				this.steps.recordStep(jobId(), name, json);
				return null;
			});
			recorded = true;
		}
		catch (DuplicateKeyException ex) {
			throw new RecordedElsewhere();
		}
		finally {
			if (!recorded) {
				this.results.unreserve(json);
			}
		}
		remember(STEP, name, json);
		return result;
	}

	private <T> @Nullable T replayRecordedElsewhere(String name, Class<T> type) {
		JobStep recorded = own(() -> this.steps.recordsOf(jobId()))
			.stream()
			.filter((record) -> record.kind() == JobStep.Kind.STEP && record.name().equals(name))
			.findFirst()
			.orElseThrow(() -> new IllegalStateException("Step '" + name + "' of job " + jobId()
					+ " could not be recorded as another run of the job had recorded it, yet it is not there"));
		synchronized (this) {
			records().put(key(STEP, name), recorded);
		}
		return this.results.decode(Objects.requireNonNull(recorded.result()), type, "step '" + name + "'");
	}

	private <T> @Nullable T runInTransaction(String name, Class<T> type, StepBody<T> body) throws Exception {
		String[] json = new String[1];
		T result;
		try {
			// Never the caller's transaction: the body's writes and the record commit together, whatever
			// a transaction the handler runs in does afterwards.
			result = this.steps.inOwnTransaction(() -> {
				T value;
				try {
					value = body.run();
				}
				catch (Exception ex) {
					throw new BodyFailed(ex);
				}
				json[0] = this.results.encode(name, value);
				try {
					this.steps.recordStep(jobId(), name, json[0]);
				}
				catch (DuplicateKeyException ex) {
					throw new RecordedElsewhere();
				}
				if (!this.steps.holdsLease(this.attempt.lease)) {
					throw new LeaseLostException(jobId());
				}
				return value;
			});
		}
		catch (BodyFailed ex) {
			throw (Exception) ex.getCause();
		}
		catch (RuntimeException | Error ex) {
			if (json[0] != null) {
				this.results.unreserve(json[0]);
			}
			throw ex;
		}
		remember(STEP, name, json[0]);
		return result;
	}

	void sleep(Duration duration) {
		checkParkable();
		requireParkLength("A sleep", duration);
		records();
		String name;
		JobStep recorded;
		synchronized (this) {
			name = String.valueOf(++this.sleeps);
			int call = ++this.calls;
			recorded = records().get(key(SLEEP, name));
			if (recorded != null) {
				this.order.met(key(SLEEP, name), "sleep '" + name + "'", call);
			}
			else {
				this.order.checkNew("sleep '" + name + "'", call);
			}
		}
		Instant wakeAt;
		if (recorded != null) {
			wakeAt = Objects.requireNonNull(recorded.wakeAt());
		}
		else {
			checkRoom();
			wakeAt = own(() -> this.steps.recordSleep(jobId(), name, duration.toMillis()));
			remember(SLEEP, name, null);
		}
		if (timeUp(wakeAt)) {
			return;
		}
		checkParkAt(key(SLEEP, name));
		throw Park.untilWakeOf(SLEEP, name);
	}

	void sleepUntil(Instant time) {
		checkParkable();
		Objects.requireNonNull(time, "time");
		Instant claimedAt = this.attempt.job.startedAt();
		if (claimedAt != null && time.isAfter(claimedAt.plus(JobContext.MAX_PARK))) {
			throw new IllegalArgumentException("A sleep until " + time + " is longer than JobContext.MAX_PARK ("
					+ JobContext.MAX_PARK.toDays() + " days)");
		}
		records();
		String name;
		JobStep recorded;
		int call;
		synchronized (this) {
			name = String.valueOf(++this.sleeps);
			call = ++this.calls;
			recorded = records().get(key(SLEEP, name));
			if (recorded != null) {
				this.order.met(key(SLEEP, name), "sleep '" + name + "'", call);
			}
		}
		Instant wakeAt = (recorded != null) ? Objects.requireNonNull(recorded.wakeAt()) : time;
		// Past by the claim's time on the database's clock: every later run's claim is later still.
		// Such a sleep records nothing, so it is in no order to check.
		if (timeUp(wakeAt)) {
			return;
		}
		if (recorded == null) {
			synchronized (this) {
				this.order.checkNew("sleep '" + name + "'", call);
			}
			checkRoom();
			own(() -> {
				this.steps.recordSleepUntil(jobId(), name, time);
				return null;
			});
			remember(SLEEP, name, null);
		}
		checkParkAt(key(SLEEP, name));
		throw Park.untilWakeOf(SLEEP, name);
	}

	void snooze(Duration delay) {
		checkParkable();
		requireParkLength("A snooze", delay);
		throw Park.forDelay(delay);
	}

	<T> Optional<T> awaitSignal(String name, Class<T> type, Duration timeout) {
		checkParkable();
		requireName("signal", name);
		Objects.requireNonNull(type, "type");
		if (timeout.isZero()) {
			throw new IllegalArgumentException("The timeout of a wait for a signal must be positive: " + timeout);
		}
		requireParkLength("The timeout of a wait for a signal", timeout);
		if (type == Void.class) {
			throw new IllegalArgumentException("A signal always has a payload: wait for it as the type it is sent "
					+ "as (Boolean, a record, ...), not Void");
		}
		records();
		JobStep recorded;
		boolean wentOn;
		int call;
		synchronized (this) {
			call = ++this.calls;
			recorded = records().get(key(SIGNAL, name));
			if (recorded != null) {
				this.order.met(key(SIGNAL, name), "wait for signal '" + name + "'", call);
			}
			wentOn = recorded != null && recorded.timedOut() && recordedAfter(key(SIGNAL, name));
		}
		if (wentOn) {
			// A run found the wait timed out and went on to record more: what it recorded may rest on
			// the empty answer, so every later run finds the same, whatever signal came since.
			return Optional.empty();
		}
		Optional<String> payload = own(() -> this.steps.signalPayload(jobId(), name));
		if (payload.isPresent()) {
			if (recorded != null && recorded.timedOut()) {
				// The signal came after the wait timed out, and nothing was recorded past the wait (the
				// run that found it timed out failed there, or an operator retries the job): it counts.
				own(() -> {
					this.steps.clearTimedOut(jobId(), name);
					return null;
				});
				synchronized (this) {
					records().put(key(SIGNAL, name), new JobStep(JobStep.Kind.SIGNAL, name, null, recorded.wakeAt(),
							false, recorded.recordedAt()));
				}
			}
			// A payload of another type fails the job at once: the signal is kept as sent, and a second
			// one of the name is refused, so every retry would fail alike.
			return Optional.ofNullable(this.codec.decodeSignal(payload.get(), type, name, jobId()));
		}
		if (recorded != null && recorded.timedOut()) {
			return Optional.empty();
		}
		if (recorded == null) {
			synchronized (this) {
				this.order.checkNew("wait for signal '" + name + "'", call);
			}
			checkRoom();
			own(() -> this.steps.recordSignalWait(jobId(), name, timeout.toMillis()));
			remember(SIGNAL, name, null);
			throw Park.untilWakeOf(SIGNAL, name);
		}
		if (timeUp(Objects.requireNonNull(recorded.wakeAt()))) {
			own(() -> {
				this.steps.recordTimedOut(jobId(), name);
				return null;
			});
			synchronized (this) {
				records().put(key(SIGNAL, name), new JobStep(JobStep.Kind.SIGNAL, name, null, recorded.wakeAt(), true,
						recorded.recordedAt()));
			}
			return Optional.empty();
		}
		checkParkAt(key(SIGNAL, name));
		throw Park.untilWakeOf(SIGNAL, name);
	}

	boolean patched(String name) {
		checkRunning();
		requireName("patch", name);
		if (Thread.currentThread() != this.handlerThread) {
			throw new IllegalStateException("patched('" + name + "') is called on the thread that runs the handler "
					+ "only: whether the job's records go past it depends on the order of that thread's calls");
		}
		records();
		String key = key(PATCH, name);
		synchronized (this) {
			int call = ++this.calls;
			Boolean answered = this.patches.get(name);
			if (answered != null) {
				return answered;
			}
			if (this.records.get(key) != null) {
				this.order.met(key, "patch '" + name + "'", call);
				this.patches.put(name, true);
				return true;
			}
			if (this.order.firstUnreplayed(true) >= 0) {
				// Earlier runs recorded past this point without the marker: the old branch, unrecorded.
				this.patches.put(name, false);
				return false;
			}
			checkRoom();
		}
		own(() -> {
			this.steps.recordPatch(jobId(), name);
			return null;
		});
		remember(PATCH, name, null);
		synchronized (this) {
			this.patches.put(name, true);
		}
		return true;
	}

	/**
	 * The handler returned: the run must have replayed every record of earlier runs (patch
	 * markers aside), or a call its code no longer makes was left behind; and a mismatch that
	 * the handler caught still fails the attempt.
	 */
	synchronized void handlerReturning() {
		// A run that made no durable call read no records: it costs nothing, and is not checked.
		if (this.records != null) {
			this.order.checkReturn();
		}
	}


	private static void requireParkLength(String what, Duration length) {
		Objects.requireNonNull(length, "duration");
		if (length.isNegative() || length.compareTo(JobContext.MAX_PARK) > 0) {
			throw new IllegalArgumentException(what + " must be from zero to JobContext.MAX_PARK ("
					+ JobContext.MAX_PARK.toDays() + " days), got " + length);
		}
	}

	/** Whether {@code wakeAt} had come when this run was claimed (the database's clock). */
	private boolean timeUp(Instant wakeAt) {
		Instant claimedAt = this.attempt.job.startedAt();
		return claimedAt != null && !claimedAt.isBefore(wakeAt);
	}

	/**
	 * The records, read on first use; to be read or changed under this object's monitor. The
	 * read itself is not under it (two threads' first calls may both read; one keeps its read):
	 * call this once before taking the monitor, so that no database read happens under it.
	 */
	private Map<String, JobStep> records() {
		synchronized (this) {
			if (this.records != null) {
				return this.records;
			}
		}
		Map<String, JobStep> read = new LinkedHashMap<>();
		List<JobStep> list = own(() -> this.steps.recordsOf(jobId()));
		long bytes = 0;
		for (JobStep record : list) {
			read.put(ReplayOrder.key(record), record);
			if (record.result() != null) {
				bytes += record.result().getBytes(StandardCharsets.UTF_8).length;
			}
		}
		synchronized (this) {
			if (this.records == null) {
				this.records = read;
				this.results.countRecorded(bytes);
				this.order.learn(list);
			}
			return this.records;
		}
	}

	/**
	 * Reads or writes the job's records where they belong: in the queue's transactional handler,
	 * in its transaction (the caller's here), which commits with the job's completion, fenced by
	 * the lease; else in a transaction of their own, never in one the queue does not own (a
	 * handler's Spring transaction), so that they outlive its rollback (a park's, a failure's)
	 * and it sees them whatever its snapshot.
	 */
	private <T> T own(java.util.function.Supplier<T> work) {
		return this.attempt.handler.transactional() ? work.get() : this.steps.inOwnTransaction(work);
	}

	/** Whether a record follows the one of this key (the records are in the order they were written). */
	private synchronized boolean recordedAfter(String key) {
		boolean after = false;
		for (String each : records().keySet()) {
			if (after) {
				return true;
			}
			after = each.equals(key);
		}
		return false;
	}

	/** The job parks on the record of this key: every record of earlier runs before it must have been replayed. */
	private synchronized void checkParkAt(String key) {
		this.order.checkParkAt(key, Objects.requireNonNull(records().get(key)));
	}

	/** Notes a record this run wrote (a step's result's bytes were reserved by {@link #encode}). */
	private synchronized void remember(String kind, String name, @Nullable String result) {
		JobStep.Kind recordKind = JobStep.Kind.valueOf(kind.toUpperCase(java.util.Locale.ROOT));
		records().put(key(kind, name), new JobStep(recordKind, name, result, null, false, Instant.EPOCH));
	}

	private static String key(String kind, String name) {
		return ReplayOrder.key(kind, name);
	}

	private long jobId() {
		return this.attempt.job.id();
	}

	private void checkRunning() {
		if (this.attempt.hasHandlerReturned()) {
			throw new IllegalStateException("The handler of " + this.attempt + " has returned: its JobContext records "
					+ "steps and parks its job only while the handler runs");
		}
		synchronized (this) {
			this.order.throwMismatchMet();
		}
	}

	private void checkParkable() {
		checkRunning();
		if (this.attempt.handler.transactional()) {
			throw new IllegalStateException("Handler '" + this.attempt.job.handler() + "' is transactional: its "
					+ "transaction would be held while the job is parked; sleep, snooze and wait for signals in a "
					+ "handler that is not, and use transactional steps for its database work");
		}
		Thread thread = Thread.currentThread();
		synchronized (this) {
			if (this.inStep.contains(thread)) {
				throw new IllegalStateException("A job cannot park in the body of a step");
			}
			if (thread != this.handlerThread) {
				throw new IllegalStateException("A job parks (sleep, snooze, awaitSignal) only from the thread that runs "
						+ "its handler: a park ends the run by unwinding the handler, which another thread cannot do; "
						+ "return what that thread needs to the handler's, and park there");
			}
			if (!this.running.isEmpty()) {
				throw new IllegalStateException("A job cannot park while steps " + this.running + " run on other "
						+ "threads: wait for them (join their futures) first, so that the run ends after they recorded");
			}
		}
	}

	/** Whether one more record fits, counting the steps whose bodies run; under the monitor. */
	private synchronized void checkRoom() {
		if (records().size() + this.running.size() >= JobContext.MAX_STEPS) {
			throw new IllegalStateException("Job " + jobId() + " has " + JobContext.MAX_STEPS + " records of steps, "
					+ "sleeps and waits, the most one job keeps (JobContext.MAX_STEPS)");
		}
	}

	private static void requireName(String kind, String name) {
		if (name == null) {
			throw new IllegalArgumentException("A " + kind + " needs a name");
		}
		Names.requireKey("A " + kind + " name", name);
	}


	/** Another run of the job recorded the step first (one that had lost the job, and ran on). */
	private static final class RecordedElsewhere extends RuntimeException {

		private static final long serialVersionUID = 1L;

		RecordedElsewhere() {
			super(null, null, false, false);
		}

	}

	/** A body's failure, carried out of the transaction that it rolls back. */
	private static final class BodyFailed extends RuntimeException {

		private static final long serialVersionUID = 1L;

		BodyFailed(Exception cause) {
			super(cause);
		}

	}

}
