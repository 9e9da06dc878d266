package io.sqlqueue.internal.manager;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * Unwinds a handler that parked its job (a sleep, a wait for a signal, a snooze) up to the
 * {@link AttemptRunner}, which writes the park. An {@link Error}, so that a handler's
 * {@code catch (Exception ex)} around the call lets it through; no stack trace, as it is no failure.
 */
final class Park extends Error {

	private static final long serialVersionUID = 1L;

	/** The kind of the record whose wake time ends the park ({@code "sleep"}, {@code "signal"}), or null for a snooze. */
	final transient @Nullable String kind;

	final transient @Nullable String name;

	/** A snooze's length (zero with a record). */
	final transient Duration delay;

	private Park(@Nullable String kind, @Nullable String name, Duration delay) {
		super("The handler parked its job (docs/durable-steps.md); this Error must not be caught", null, false, false);
		this.kind = kind;
		this.name = name;
		this.delay = delay;
	}

	static Park untilWakeOf(String kind, String name) {
		return new Park(kind, name, Duration.ZERO);
	}

	static Park forDelay(Duration delay) {
		return new Park(null, null, delay);
	}

	/** The name of the signal the park waits for, or null. */
	@Nullable String awaitedSignal() {
		return DurableSteps.SIGNAL.equals(this.kind) ? this.name : null;
	}

}
