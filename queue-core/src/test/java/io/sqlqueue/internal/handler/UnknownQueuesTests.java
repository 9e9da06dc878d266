package io.sqlqueue.internal.handler;

import java.util.List;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;
import org.slf4j.LoggerFactory;

import io.sqlqueue.handler.HandlerDefinition;
import io.sqlqueue.handler.UnknownHandlerPolicy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Queues in the configuration that no handler here runs in: {@code sqlqueue.queues.imprts} for {@code imports}. */
@Isolated // reads the log, which other classes' queues write to
class UnknownQueuesTests {

	private final HandlerRegistry registry = new HandlerRegistry();

	private final ListAppender<ILoggingEvent> log = new ListAppender<>();

	private final Logger logger = (Logger) LoggerFactory.getLogger(UnknownQueues.class);

	@BeforeEach
	void setUp() {
		this.registry.register(HandlerDefinition.of("import.file", "imports", (payload, context) -> null));
		this.registry.register(HandlerDefinition.of("mail.welcome", "mail.bulk", (payload, context) -> null));
		this.log.start();
		this.logger.addAppender(this.log);
		this.logger.setLevel(Level.WARN);
	}

	@AfterEach
	void tearDown() {
		this.logger.detachAppender(this.log);
		this.logger.setLevel(null);
	}

	@Test
	void warnsOfAConfiguredQueueNoHandlerRunsInWithTheNearestQueue() {
		new UnknownQueues(this.registry, UnknownHandlerPolicy.WARN, List.of())
			.check(List.of("imports", "imprts", "mail.bulk", "mail.blk", "archive"));
		assertThat(this.log.list).extracting(ILoggingEvent::getLevel).containsOnly(Level.WARN);
		assertThat(this.log.list).extracting(ILoggingEvent::getFormattedMessage)
			.satisfiesExactly(
					(message) -> assertThat(message).contains("sqlqueue.queues.imprts configures the queue 'imprts'",
							"no handler of this instance runs in it (their queues: imports, mail.bulk)",
							"Did you mean 'imports'?", "sqlqueue.remote-queues"),
					(message) -> assertThat(message).contains("sqlqueue.queues[mail.blk]",
							"Did you mean 'mail.bulk'?"),
					(message) -> assertThat(message).contains("'archive'").doesNotContain("Did you mean"));
	}

	@Test
	void remoteQueuesAreExpectedByNameOrPrefixAndSuggested() {
		UnknownQueues unknown = new UnknownQueues(this.registry, UnknownHandlerPolicy.WARN,
				List.of("billing", "partner.*"));
		assertThat(unknown.unknown(List.of("imports", "billing", "partner.acme", "biling"))).containsExactly("biling");
		assertThat(unknown.closest("biling")).contains("billing");
	}

	@Test
	void failStopsWithEveryUnknownQueueNamed() {
		UnknownQueues unknown = new UnknownQueues(this.registry, UnknownHandlerPolicy.FAIL, List.of());
		unknown.check(List.of("imports"));
		assertThatThrownBy(() -> unknown.check(List.of("imports", "imprts", "archive")))
			.isInstanceOf(IllegalStateException.class)
			.hasMessageContaining("Did you mean 'imports'?")
			.hasMessageContaining("'archive'")
			.hasMessageContaining("sqlqueue.unknown-handlers=fail");
		assertThat(this.log.list).isEmpty();
	}

	@Test
	void ignoreSaysNothing() {
		new UnknownQueues(this.registry, UnknownHandlerPolicy.IGNORE, List.of()).check(List.of("imprts"));
		assertThat(this.log.list).isEmpty();
	}

	@Test
	void anInstanceWithoutHandlersSaysSo() {
		new UnknownQueues(new HandlerRegistry(), UnknownHandlerPolicy.WARN, List.of()).check(List.of("imports"));
		assertThat(this.log.list).singleElement()
			.satisfies((event) -> assertThat(event.getFormattedMessage()).contains("this instance has no handlers"));
	}

}
