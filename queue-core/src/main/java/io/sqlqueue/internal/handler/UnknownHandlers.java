package io.sqlqueue.internal.handler;

import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sqlqueue.InvalidJobException;
import io.sqlqueue.handler.UnknownHandlerPolicy;

/**
 * Makes an enqueue for a handler this instance does not have loud: a typo such as
 * {@code mail.welcom} would otherwise sit {@code QUEUED} forever without a word, since a
 * Manager claims only the jobs whose handler it has. An enqueue for such a name is warned
 * about, refused or let pass by the {@link UnknownHandlerPolicy}, with the closest known
 * name as a suggestion.
 * <p>
 * A service that only enqueues sends jobs to handlers of other services by design: it
 * declares their names as remote handlers (exact names, or a prefix ending in {@code *} such
 * as {@code billing.*}), and those are known like its own.
 * <p>
 * An instance knows its own handlers only: no table lists which handlers the running
 * instances have. {@link #notice(String)} says so honestly, for the views of a job.
 */
public class UnknownHandlers {

	/** Most edits (insert, delete, replace) between a name and a known name that is suggested for it. */
	public static final int MAX_SUGGESTION_DISTANCE = NameSuggestions.MAX_SUGGESTION_DISTANCE;

	/** Most names warned about; past it the warnings stop, so that names made from input cannot flood the log. */
	static final int MAX_WARNED_NAMES = 1000;

	private static final Logger logger = LoggerFactory.getLogger(UnknownHandlers.class);

	private final HandlerRegistry registry;

	private final UnknownHandlerPolicy policy;

	private final DeclaredNames remote;

	private final BooleanSupplier registered;

	private final Set<String> warned = ConcurrentHashMap.newKeySet();

	/** Warns, with no remote handlers, from the first enqueue. */
	public UnknownHandlers(HandlerRegistry registry) {
		this(registry, UnknownHandlerPolicy.WARN, List.of(), () -> true);
	}

	/**
	 * @param remoteHandlers names of handlers other services have (a trailing {@code *} for a prefix)
	 * @param registered whether every handler of this instance is registered: until then (while
	 * an application context is still creating its beans) an enqueue is not checked
	 */
	public UnknownHandlers(HandlerRegistry registry, UnknownHandlerPolicy policy, Collection<String> remoteHandlers,
			BooleanSupplier registered) {
		this.registry = registry;
		this.policy = policy;
		this.registered = registered;
		this.remote = new DeclaredNames(remoteHandlers);
	}

	public UnknownHandlerPolicy policy() {
		return this.policy;
	}

	/**
	 * Checks the handler of a job about to be enqueued.
	 * @throws InvalidJobException for a name this instance does not know, under {@link UnknownHandlerPolicy#FAIL}
	 */
	public void check(String handler) {
		if (this.policy == UnknownHandlerPolicy.IGNORE || isKnown(handler) || !this.registered.getAsBoolean()) {
			return;
		}
		if (this.policy == UnknownHandlerPolicy.FAIL) {
			throw new InvalidJobException(problem(handler) + " Nothing was enqueued (sqlqueue.unknown-handlers=fail). "
					+ "If another service handles it, list it in sqlqueue.remote-handlers.");
		}
		if (this.warned.size() < MAX_WARNED_NAMES && this.warned.add(handler)) {
			logger.warn("{} The job waits QUEUED until an instance that has the handler runs it. If another service "
					+ "handles it, list it in sqlqueue.remote-handlers; this is said once per name "
					+ "(sqlqueue.unknown-handlers=fail refuses such jobs, =ignore says nothing).", problem(handler));
		}
	}

	/** Whether this instance has the handler, or declares it as handled elsewhere. */
	public boolean isKnown(String handler) {
		return this.registry.find(handler).isPresent() || this.remote.contains(handler);
	}

	/**
	 * What the view of a job whose handler is unknown here should say: that this instance has
	 * no such handler (with the closest name), and that if no running instance has it, the job
	 * never runs. Empty for a known name.
	 */
	public Optional<String> notice(String handler) {
		if (isKnown(handler)) {
			return Optional.empty();
		}
		return Optional.of(problem(handler) + " A job runs only on an instance that has its handler: if no running "
				+ "instance has it, the job stays QUEUED and never runs.");
	}

	private String problem(String handler) {
		String suggestion = closest(handler).map((name) -> " Did you mean '" + name + "'?").orElse("");
		String known = this.registry.isEmpty() ? " (it has no handlers)" : "";
		return "This instance has no handler named '" + handler + "'" + known + "." + suggestion;
	}

	/**
	 * The known name (this instance's handlers and the exact remote names) nearest to
	 * {@code handler}, at most {@link #MAX_SUGGESTION_DISTANCE} edits away and nearer than
	 * the name is long; the first in order among equally near ones.
	 */
	public Optional<String> closest(String handler) {
		Set<String> candidates = new TreeSet<>(this.registry.names());
		candidates.addAll(this.remote.exact());
		return NameSuggestions.closest(handler, candidates);
	}

}
