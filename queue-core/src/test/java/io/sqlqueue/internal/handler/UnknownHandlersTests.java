package io.sqlqueue.internal.handler;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;
import org.slf4j.LoggerFactory;

import io.sqlqueue.InvalidJobException;
import io.sqlqueue.handler.HandlerDefinition;
import io.sqlqueue.handler.UnknownHandlerPolicy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@Isolated // reads the log, which other classes' queues write to
class UnknownHandlersTests {

	private final HandlerRegistry registry = new HandlerRegistry();

	private final ListAppender<ILoggingEvent> log = new ListAppender<>();

	private final Logger logger = (Logger) LoggerFactory.getLogger(UnknownHandlers.class);

	@BeforeEach
	void setUp() {
		this.registry.register(HandlerDefinition.of("mail.welcome", "mail", (payload, context) -> null));
		this.registry.register(HandlerDefinition.of("report.build", "reports", (payload, context) -> null));
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
	void suggestsTheNearestKnownNameWithinTwoEdits() {
		UnknownHandlers unknown = new UnknownHandlers(this.registry, UnknownHandlerPolicy.WARN,
				List.of("billing.charge", "audit.*"), () -> true);
		assertThat(unknown.closest("mail.welcom")).contains("mail.welcome");
		assertThat(unknown.closest("Mail.Welcome")).contains("mail.welcome");
		assertThat(unknown.closest("report.biuld")).contains("report.build");
		assertThat(unknown.closest("billing.charges")).contains("billing.charge");
		assertThat(unknown.closest("mail.goodbye")).isEmpty();
		assertThat(unknown.closest("x")).isEmpty();
	}

	@Test
	void levenshteinDistance() {
		assertThat(NameSuggestions.distance("kitten", "sitting")).isEqualTo(3);
		assertThat(NameSuggestions.distance("", "abc")).isEqualTo(3);
		assertThat(NameSuggestions.distance("abc", "abc")).isZero();
		assertThat(NameSuggestions.distance("mail.welcom", "mail.welcome")).isEqualTo(1);
	}

	@Test
	void warnsOncePerUnknownNameWithTheSuggestion() {
		UnknownHandlers unknown = new UnknownHandlers(this.registry);
		unknown.check("mail.welcom");
		unknown.check("mail.welcom");
		unknown.check("mail.welcome");
		unknown.check("other");
		assertThat(this.log.list).extracting(ILoggingEvent::getLevel).containsExactly(Level.WARN, Level.WARN);
		assertThat(this.log.list.get(0).getFormattedMessage())
			.contains("no handler named 'mail.welcom'", "Did you mean 'mail.welcome'?", "sqlqueue.remote-handlers");
		assertThat(this.log.list.get(1).getFormattedMessage()).contains("'other'").doesNotContain("Did you mean");
	}

	@Test
	void remoteHandlersAreKnownByNameOrPrefix() {
		UnknownHandlers unknown = new UnknownHandlers(this.registry, UnknownHandlerPolicy.FAIL,
				List.of("billing.charge", "audit.*"), () -> true);
		unknown.check("billing.charge");
		unknown.check("audit.login");
		unknown.check("mail.welcome");
		assertThat(unknown.notice("audit.login")).isEmpty();
		assertThatThrownBy(() -> unknown.check("billing.refund")).isInstanceOf(InvalidJobException.class);
		assertThat(this.log.list).isEmpty();
	}

	@Test
	void failRefusesAnUnknownName() {
		UnknownHandlers unknown = new UnknownHandlers(this.registry, UnknownHandlerPolicy.FAIL, List.of(), () -> true);
		assertThatThrownBy(() -> unknown.check("mail.welcom")).isInstanceOf(InvalidJobException.class)
			.hasMessageContaining("no handler named 'mail.welcom'")
			.hasMessageContaining("Did you mean 'mail.welcome'?")
			.hasMessageContaining("Nothing was enqueued");
	}

	@Test
	void ignoreSaysNothing() {
		new UnknownHandlers(this.registry, UnknownHandlerPolicy.IGNORE, List.of(), () -> true).check("mail.welcom");
		assertThat(this.log.list).isEmpty();
	}

	@Test
	void checksNothingUntilEveryHandlerIsRegistered() {
		AtomicBoolean registered = new AtomicBoolean();
		UnknownHandlers unknown = new UnknownHandlers(this.registry, UnknownHandlerPolicy.FAIL, List.of(),
				registered::get);
		unknown.check("late.handler");
		registered.set(true);
		assertThatThrownBy(() -> unknown.check("late.handler")).isInstanceOf(InvalidJobException.class);
	}

	@Test
	void noticeSaysWhatThisInstanceKnowsAndWhatFollows() {
		UnknownHandlers unknown = new UnknownHandlers(this.registry);
		assertThat(unknown.notice("mail.welcome")).isEmpty();
		assertThat(unknown.notice("mail.welcom")).hasValueSatisfying((text) -> assertThat(text)
			.contains("This instance has no handler named 'mail.welcom'", "Did you mean 'mail.welcome'?",
					"if no running instance has it, the job stays QUEUED and never runs"));
		assertThat(new UnknownHandlers(new HandlerRegistry()).notice("x"))
			.hasValueSatisfying((text) -> assertThat(text).contains("(it has no handlers)"));
	}

}
