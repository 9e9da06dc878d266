package io.sqlqueue.internal.handler;

import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sqlqueue.handler.UnknownHandlerPolicy;

/**
 * Makes a queue in the configuration that nothing here runs in loud: a typo such as
 * {@code sqlqueue.queues.imprts} for the queue {@code imports} would otherwise set up a lane
 * no job comes to, while the real queue runs with the defaults (its workers, no limits, no
 * fair turns) without a word. A configured queue is expected when one of this instance's
 * handlers runs in it, or when it is declared as a queue jobs are sent to on purpose
 * ({@code sqlqueue.remote-queues}: queues other services' handlers run in, or that jobs are
 * sent to with {@code Job.queue(...)}); any other is warned about, refused or let pass by the
 * same {@link UnknownHandlerPolicy} as handler names, with the closest known queue as a
 * suggestion.
 * <p>
 * Checked once, when every handler is registered: the configuration does not change after.
 */
public class UnknownQueues {

	private static final Logger logger = LoggerFactory.getLogger(UnknownQueues.class);

	private final HandlerRegistry registry;

	private final UnknownHandlerPolicy policy;

	private final DeclaredNames remote;

	/**
	 * @param remoteQueues queues that no handler of this instance names but that are expected
	 * (a trailing {@code *} for a prefix)
	 */
	public UnknownQueues(HandlerRegistry registry, UnknownHandlerPolicy policy, Collection<String> remoteQueues) {
		this.registry = registry;
		this.policy = policy;
		this.remote = new DeclaredNames(remoteQueues);
	}

	/**
	 * Checks the queues of the configuration ({@code sqlqueue.queues.<name>}).
	 * @throws IllegalStateException naming every unknown queue, under {@link UnknownHandlerPolicy#FAIL}
	 */
	public void check(Collection<String> configured) {
		if (this.policy == UnknownHandlerPolicy.IGNORE) {
			return;
		}
		List<String> problems = unknown(configured).stream().map(this::problem).toList();
		if (problems.isEmpty()) {
			return;
		}
		if (this.policy == UnknownHandlerPolicy.FAIL) {
			throw new IllegalStateException(String.join(" ", problems) + " Start-up stops (sqlqueue.unknown-handlers="
					+ "fail). If other services' handlers run in it, or jobs are sent to it with Job.queue(...), list "
					+ "it in sqlqueue.remote-queues.");
		}
		problems.forEach((problem) -> logger.warn("{} Its settings hold for a queue no job of this instance goes to "
				+ "by default. If other services' handlers run in it, or jobs are sent to it with Job.queue(...), "
				+ "list it in sqlqueue.remote-queues (sqlqueue.unknown-handlers=fail stops start-up on such a name, "
				+ "=ignore says nothing).", problem));
	}

	/** The configured queues that no handler here runs in and that are not declared, in the configuration's order. */
	public Set<String> unknown(Collection<String> configured) {
		Set<String> served = this.registry.queues();
		Set<String> unknown = new LinkedHashSet<>();
		for (String queue : configured) {
			if (!served.contains(queue) && !this.remote.contains(queue)) {
				unknown.add(queue);
			}
		}
		return unknown;
	}

	/**
	 * The queue (of this instance's handlers and the exact remote queues) nearest to
	 * {@code queue}, as {@link UnknownHandlers#closest} suggests handler names.
	 */
	public Optional<String> closest(String queue) {
		Set<String> candidates = new TreeSet<>(this.registry.queues());
		candidates.addAll(this.remote.exact());
		return NameSuggestions.closest(queue, candidates);
	}

	private String problem(String queue) {
		String suggestion = closest(queue).map((name) -> " Did you mean '" + name + "'?").orElse("");
		String handlers = this.registry.isEmpty() ? "this instance has no handlers"
				: "no handler of this instance runs in it (their queues: "
						+ String.join(", ", this.registry.queues()) + ")";
		return property(queue) + " configures the queue '" + queue + "', but " + handlers + "." + suggestion;
	}

	/** The property as it is written: a name with dots needs brackets. */
	private static String property(String queue) {
		return queue.contains(".") ? "sqlqueue.queues[" + queue + "]" : "sqlqueue.queues." + queue;
	}

}
