package io.sqlqueue;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * One record of a job's durable progress (docs/durable-steps.md): a step that returned, a
 * sleep, a wait for a signal, or a patch marker. Read with {@link JobQueue#steps}, in the
 * order they were written, numbered from 1 in that order in errors and operator actions.
 *
 * @param kind what was recorded
 * @param name the step's, the awaited signal's or the patch's name; a sleep's number, from 1,
 * in the order its runs reach them
 * @param result a step's result as JSON ({@code null} for the other kinds)
 * @param wakeAt when a sleep ends, or when a wait for a signal times out; {@code null} for a step
 * @param timedOut whether a wait for a signal timed out (a run found its time up without the signal)
 * @param recordedAt when it was recorded, by the database's clock
 */
public record JobStep(Kind kind, String name, @Nullable String result, @Nullable Instant wakeAt, boolean timedOut,
		Instant recordedAt) {

	/** What a record is. */
	public enum Kind {

		/** A step whose body returned: {@link JobContext#step}. */
		STEP,

		/** A durable sleep: {@link JobContext#sleep}. */
		SLEEP,

		/** A wait for a signal: {@link JobContext#awaitSignal}. */
		SIGNAL,

		/** A patch marker that a run took the new branch of: {@link JobContext#patched}. */
		PATCH

	}

}
