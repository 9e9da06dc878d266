package io.sqlqueue.boot.autoconfigure;

import java.time.Duration;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.sqlqueue.JobHandler;
import io.sqlqueue.flow.Fairness;
import io.sqlqueue.flow.FlowControl;
import io.sqlqueue.internal.store.FlowStore;
import io.sqlqueue.internal.store.WeightRow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Fair turns from the configuration and from {@code @JobHandler}, declared at start-up; bad ones stop it. */
class FairTurnsAutoConfigurationTests {

	private final String url = "jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
				DataSourceTransactionManagerAutoConfiguration.class, JacksonAutoConfiguration.class,
				SqlQueueAutoConfiguration.class))
		.withPropertyValues("spring.datasource.url=" + this.url, "sqlqueue.manager.poll-interval=50ms",
				"sqlqueue.manager.shutdown-timeout=1s");

	@Test
	void declaresTheFairTurnsOfTheConfiguration() {
		this.runner
			.withPropertyValues("sqlqueue.queues.imports.fair=true", "sqlqueue.queues.exports.fair-weights[gold*]=3",
					"sqlqueue.queues.exports.fair-weights[tin]=1")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				FlowControl flow = context.getBean(FlowControl.class);
				assertThat(flow.limits("imports").fairness()).isEqualTo(Fairness.roundRobin());
				assertThat(flow.limits("exports").fairness())
					.isEqualTo(Fairness.roundRobin().withWeight("gold*", 3).withWeight("tin", 1));
				assertThat(context.getBean(FlowStore.class).declarations().allWeights()).extracting(WeightRow::source)
					.containsOnly("PROPERTIES");
			});
	}

	@Test
	void declaresTheFairTurnsOfAHandlerUnlessTheConfigurationSetsThem() {
		this.runner.withBean(Imports.class).withPropertyValues("sqlqueue.manager.heartbeat-interval=100ms")
			.run((context) -> {
				assertThat(context.getBean(FlowControl.class).limits("imports").fairness())
					.isEqualTo(Fairness.roundRobin().withWeight("vip:*", 2));
				assertThat(context.getBean(FlowStore.class).declarations().allWeights()).extracting(WeightRow::source)
					.containsOnly("ANNOTATION");
			});
		// Configured unfair: the annotation's turns, stored at the last start-up, are removed
		// once that instance's declaration lapses (three of its 100 ms beats), at a beat.
		this.runner.withBean(Imports.class)
			.withPropertyValues("sqlqueue.queues.imports.fair=false", "sqlqueue.manager.heartbeat-interval=100ms")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				FlowControl flow = context.getBean(FlowControl.class);
				await().atMost(Duration.ofSeconds(10)).until(() -> !flow.limits("imports").isFair());
			});
	}

	@Test
	void failsOnAWeightBelowOne() {
		this.runner.withPropertyValues("sqlqueue.queues.imports.fair-weights[vip]=0").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).hasStackTraceContaining(
					"sqlqueue.queues.imports.fair-weights is invalid: The weight of keys 'vip' must be a whole number "
							+ "from 1 to 1000, got 0");
		});
	}

	@Test
	void failsOnAWeightThatIsNoNumber() {
		this.runner.withPropertyValues("sqlqueue.queues.imports.fair-weights[vip]=lots").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).hasStackTraceContaining("sqlqueue.queues.imports.fair-weights");
		});
	}

	@Test
	void failsOnAPatternThatCannotMatch() {
		this.runner.withPropertyValues("sqlqueue.queues.imports.fair-weights[a*b]=2").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure())
				.hasStackTraceContaining("sqlqueue.queues.imports.fair-weights is invalid: A key pattern may have '*' only at its end");
		});
	}

	@Test
	void failsOnWeightsOfAQueueConfiguredUnfair() {
		this.runner.withPropertyValues("sqlqueue.queues.imports.fair=false", "sqlqueue.queues.imports.fair-weights[vip]=2")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(context.getStartupFailure()).rootCause()
					.hasMessageContaining("sqlqueue.queues.imports.fair-weights is invalid: sqlqueue.queues.imports.fair is false");
			});
	}

	@Test
	void failsOnABadWeightOfAHandlerNamingTheMethod() {
		this.runner.withBean(BadWeights.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure())
				.hasStackTraceContaining("#bad declares fairWeights 'vip=many': the weight 'many' is not a whole number");
		});
	}

	@Test
	void failsWhenTwoHandlersOfAQueueDeclareDifferentFairTurns() {
		this.runner.withBean(Imports.class).withBean(OtherImports.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.hasMessageContaining("declare different fair turns for queue 'imports'")
				.hasMessageContaining("#load")
				.hasMessageContaining("#reload");
		});
	}

	static class Imports {

		@JobHandler(value = "load", queue = "imports", fairWeights = "vip:*=2")
		void load(String payload) {
		}

	}

	static class OtherImports {

		@JobHandler(value = "reload", queue = "imports", fair = true)
		void reload(String payload) {
		}

	}

	static class BadWeights {

		@JobHandler(value = "bad", queue = "imports", fairWeights = "vip=many")
		void bad(String payload) {
		}

	}

}
