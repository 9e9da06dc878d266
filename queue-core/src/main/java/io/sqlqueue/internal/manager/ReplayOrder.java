package io.sqlqueue.internal.manager;

import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Locale;

import org.jspecify.annotations.Nullable;

import io.sqlqueue.JobStep;
import io.sqlqueue.ReplayMismatchException;

/**
 * The order check of one run's durable calls against the records of earlier runs
 * (docs/durable-steps.md#changing-a-durable-handler): which records this run has replayed, in
 * which order the handler's thread met them, and the mismatch it found, thrown again by every
 * later call. Not thread-safe: {@link DurableSteps} calls it under its monitor.
 */
final class ReplayOrder {

	private final long jobId;

	/** The thread that runs the handler: its calls are in the order it wrote them. */
	private final Thread handlerThread;

	/**
	 * The records of earlier runs, in the order they were written (record {@code i + 1} at
	 * {@code i}), with the positions of their keys, and which this run has met. See
	 * {@link #met} and {@link #checkNew} for the order they are checked in.
	 */
	private List<JobStep> earlier = List.of();

	private final Map<String, Integer> positions = new HashMap<>();

	private final BitSet replayed = new BitSet();

	/** The position of the last record of earlier runs that the handler's thread met first; -1 for none. */
	private int handlerAt = -1;

	/** The mismatch this run met, thrown again by every later call and at the handler's return. */
	private @Nullable String mismatch;

	ReplayOrder(long jobId, Thread handlerThread) {
		this.jobId = jobId;
		this.handlerThread = handlerThread;
	}

	/** The records of earlier runs, as read on the run's first durable call, in the order they were written. */
	void learn(List<JobStep> records) {
		this.earlier = List.copyOf(records);
		for (int i = 0; i < records.size(); i++) {
			this.positions.put(key(records.get(i)), i);
		}
	}

	/** A record's key: its kind and name. */
	static String key(JobStep record) {
		return key(record.kind().name().toLowerCase(Locale.ROOT), record.name());
	}

	/** The key of a record of this kind ({@code step}, {@code sleep}, ...) and name. */
	static String key(String kind, String name) {
		return kind + '\0' + name;
	}

	/**
	 * The handler returned: the run must have replayed every record of earlier runs (patch
	 * markers aside), or a call its code no longer makes was left behind; and a mismatch that
	 * the handler caught still fails the attempt.
	 */
	void checkReturn() {
		throwMismatchMet();
		int left = firstUnreplayed(true);
		if (left >= 0) {
			throw mismatch(record(left) + ", which this run did not replay before its handler returned: a "
					+ "call the handler no longer makes");
		}
	}

	/**
	 * A call met its record. When the record is one of earlier runs that this run meets for
	 * the first time on the handler's thread, it must come after the last such record (the
	 * handler's thread makes its calls in order, and so wrote them), and no sleep or wait of
	 * earlier runs may lie unreplayed between the two (those are the handler's thread's only,
	 * so that thread passed it by). Steps in between may be replayed by other threads of the
	 * run; they are checked when a call records something new, the job parks or the handler
	 * returns. Under the monitor.
	 */
	void met(String key, String call, int ordinal) {
		Integer at = this.positions.get(key);
		if (at == null || this.replayed.get(at)) {
			return;
		}
		if (Thread.currentThread() == this.handlerThread) {
			if (at < this.handlerAt) {
				throw mismatch(record(at) + " and " + record(this.handlerAt) + "; this run's " + ordinal(ordinal)
						+ " durable call is " + call + ", after " + describe(this.earlier.get(this.handlerAt))
						+ ": the order changed");
			}
			for (int i = this.handlerAt + 1; i < at; i++) {
				JobStep skipped = this.earlier.get(i);
				if (!this.replayed.get(i) && (skipped.kind() == JobStep.Kind.SLEEP
						|| skipped.kind() == JobStep.Kind.SIGNAL)) {
					throw mismatch(record(i) + ", which this run has not reached; this run's " + ordinal(ordinal)
							+ " durable call is " + call + ", " + record(at) + ": a call was removed or renamed");
				}
			}
			this.handlerAt = at;
		}
		this.replayed.set(at);
	}

	/**
	 * A call is about to record something new (and run a step's body): every record of earlier
	 * runs must have been replayed (patch markers aside), or this call takes the place of one
	 * (renamed, removed, or inserted before it). A step of another thread than the handler's
	 * is stopped only by an unreplayed sleep or wait: the steps its siblings replay may come
	 * later. Under the monitor.
	 */
	void checkNew(String call, int ordinal) {
		int left = firstUnreplayed(Thread.currentThread() == this.handlerThread);
		if (left >= 0) {
			throw mismatch(record(left) + ", which this run has not replayed; this run's " + ordinal(ordinal)
					+ " durable call is " + call + ", which has no record: its body does not run");
		}
	}

	/** The job parks on {@code parkedOn}, the record of this key: every record of earlier runs before it must have been replayed. */
	void checkParkAt(String key, JobStep parkedOn) {
		Integer at = this.positions.get(key);
		int until = (at != null) ? at : this.earlier.size();
		for (int i = 0; i < until; i++) {
			if (!this.replayed.get(i) && this.earlier.get(i).kind() != JobStep.Kind.PATCH) {
				throw mismatch(record(i) + ", which this run did not replay before it parked on "
						+ describe(parkedOn) + ": a call the handler no longer makes");
			}
		}
	}

	/** The first record of earlier runs not replayed (patch markers aside; only sleeps and waits unless {@code steps}), or -1. */
	int firstUnreplayed(boolean steps) {
		for (int i = this.replayed.nextClearBit(0); i < this.earlier.size(); i = this.replayed.nextClearBit(i + 1)) {
			JobStep.Kind kind = this.earlier.get(i).kind();
			if (kind != JobStep.Kind.PATCH && (steps || kind != JobStep.Kind.STEP)) {
				return i;
			}
		}
		return -1;
	}

	private ReplayMismatchException mismatch(String detail) {
		this.mismatch = "Job " + this.jobId + " does not replay as it was recorded (did its handler change while it "
				+ "was in flight?): " + detail + ". The job fails without retries; see "
				+ "docs/durable-steps.md#changing-a-durable-handler (a patched(...) branch, QueueAdmin.retryFrom)";
		return new ReplayMismatchException(this.mismatch);
	}

	void throwMismatchMet() {
		if (this.mismatch != null) {
			throw new ReplayMismatchException(this.mismatch);
		}
	}

	private String record(int at) {
		return "record " + (at + 1) + " is " + describe(this.earlier.get(at));
	}

	private static String describe(JobStep record) {
		return switch (record.kind()) {
			case STEP -> "step '" + record.name() + "'";
			case SLEEP -> "sleep '" + record.name() + "'";
			case SIGNAL -> "wait for signal '" + record.name() + "'";
			case PATCH -> "patch '" + record.name() + "'";
		};
	}

	private static String ordinal(int n) {
		return switch (n) {
			case 1 -> "first";
			case 2 -> "second";
			case 3 -> "third";
			default -> n + (((n % 100) / 10 == 1) ? "th" : switch (n % 10) {
				case 1 -> "st";
				case 2 -> "nd";
				case 3 -> "rd";
				default -> "th";
			});
		};
	}

}
