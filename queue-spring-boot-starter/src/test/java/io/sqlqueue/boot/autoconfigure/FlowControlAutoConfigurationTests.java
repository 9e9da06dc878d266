package io.sqlqueue.boot.autoconfigure;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.sqlqueue.Job;
import io.sqlqueue.JobHandler;
import io.sqlqueue.JobQueue;
import io.sqlqueue.boot.flow.LimitDeclarer;
import io.sqlqueue.flow.FlowControl;
import io.sqlqueue.flow.Limit;
import io.sqlqueue.flow.QueueLimits;
import io.sqlqueue.flow.RateLimit;
import io.sqlqueue.internal.flow.DefaultFlowControl;
import io.sqlqueue.internal.store.FlowStore;
import io.sqlqueue.internal.store.LimitRow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Limits from the configuration and from {@code @JobHandler}, declared at start-up, and the Manager under them. */
class FlowControlAutoConfigurationTests {

	private final String url = "jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
				DataSourceTransactionManagerAutoConfiguration.class, JacksonAutoConfiguration.class,
				SqlQueueAutoConfiguration.class))
		.withPropertyValues("spring.datasource.url=" + this.url, "sqlqueue.manager.poll-interval=50ms",
				"sqlqueue.manager.shutdown-timeout=1s");

	@Test
	void declaresTheLimitsOfTheConfiguration() {
		this.runner
			.withPropertyValues("sqlqueue.queues.payments.global-concurrency=5",
					"sqlqueue.queues.payments.rate-limit=100/1m",
					"sqlqueue.queues.payments.key-limits[0].keys=customer:*",
					"sqlqueue.queues.payments.key-limits[0].concurrency=2",
					"sqlqueue.queues.payments.key-limits[1].keys=stripe",
					"sqlqueue.queues.payments.key-limits[1].rate-limit=10/1s")
			.run((context) -> {
				assertThat(context).hasNotFailed().hasSingleBean(FlowControl.class).hasSingleBean(LimitDeclarer.class);
				QueueLimits payments = context.getBean(FlowControl.class).limits("payments");
				assertThat(payments.limit()).isEqualTo(new Limit(5, RateLimit.parse("100/1m")));
				assertThat(payments.limitOf("customer:42")).isEqualTo(Limit.concurrency(2));
				assertThat(payments.limitOf("stripe")).isEqualTo(new Limit(null, RateLimit.parse("10/1s")));
				assertThat(context.getBean(FlowStore.class).declarations().all()).extracting(LimitRow::source)
					.containsOnly("PROPERTIES");
			});
	}

	@Test
	void aLimitNoLongerConfiguredIsRemovedOnceItsDeclarationLapsesAndOneSetThroughTheApiStays() {
		// The first instance keeps its declarations every 100 ms: they lapse 300 ms after it stops.
		this.runner.withPropertyValues("sqlqueue.queues.payments.global-concurrency=5",
				"sqlqueue.queues.reports.global-concurrency=1", "sqlqueue.manager.heartbeat-interval=100ms")
			.run((context) -> {
				assertThat(context.getBean(FlowControl.class).limits("payments").limit())
					.isEqualTo(Limit.concurrency(5));
				context.getBean(FlowControl.class).setLimit("mail", Limit.concurrency(1));
			});
		// Served (a handler of "payments"), no longer configured: removed at a beat of the next
		// instance once no live instance declares it. "reports" is served no more: another
		// application's instances may still declare it, so its limit stays.
		this.runner.withBean(OtherCharges.class).withPropertyValues("sqlqueue.manager.heartbeat-interval=100ms")
			.run((context) -> {
				FlowControl limits = context.getBean(FlowControl.class);
				await().atMost(Duration.ofSeconds(10)).until(() -> limits.limits("payments").limit() == null);
				assertThat(limits.limits("payments").limitOf("x")).isEqualTo(Limit.concurrency(1));
				assertThat(limits.limits("reports").limit()).isEqualTo(Limit.concurrency(1));
				assertThat(limits.limits("mail").limit()).isEqualTo(Limit.concurrency(1));
			});
	}

	@Test
	void declaresTheLimitPerKeyOfAHandlerUnlessTheConfigurationSetsIt() {
		this.runner.withBean(Charges.class).run((context) -> {
			QueueLimits payments = context.getBean(FlowControl.class).limits("payments");
			assertThat(payments.limitOf("customer:1")).isEqualTo(new Limit(2, RateLimit.parse("10/1s")));
			assertThat(context.getBean(FlowStore.class).declarations().all()).extracting(LimitRow::source).containsOnly("ANNOTATION");
		});
		this.runner.withBean(Charges.class)
			.withPropertyValues("sqlqueue.queues.payments.key-limits[0].keys=*",
					"sqlqueue.queues.payments.key-limits[0].concurrency=3")
			.run((context) -> {
				QueueLimits payments = context.getBean(FlowControl.class).limits("payments");
				assertThat(payments.limitOf("customer:1")).isEqualTo(Limit.concurrency(3));
				assertThat(context.getBean(FlowStore.class).declarations().all()).extracting(LimitRow::source)
					.containsOnly("PROPERTIES");
			});
	}

	@Test
	void theManagerKeepsTheLimitsAndWakesWhenOneIsRemoved() {
		this.runner.withBean(Blocking.class)
			.withPropertyValues("sqlqueue.queues.slow.global-concurrency=1", "sqlqueue.manager.poll-interval=30s")
			.run((context) -> {
				JobQueue jobs = context.getBean(JobQueue.class);
				Blocking blocking = context.getBean(Blocking.class);
				jobs.enqueueAll(java.util.List.of(Job.of("slow", 1), Job.of("slow", 2), Job.of("slow", 3)));
				try {
					await().atMost(Duration.ofSeconds(10)).until(() -> blocking.started.getCount() == 2);
					Thread.sleep(200);
					assertThat(blocking.started.getCount()).isEqualTo(2);
					assertThat(context.getBean(FlowControl.class).removeLimit("slow")).isTrue();
					// Woken by the change, long before the next poll in 30 s.
					assertThat(blocking.started.await(5, TimeUnit.SECONDS)).isTrue();
				}
				finally {
					blocking.release.countDown();
				}
			});
	}

	@Test
	void failsOnABadRateLimit() {
		this.runner.withPropertyValues("sqlqueue.queues.mail.rate-limit=100").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure())
				.hasStackTraceContaining("Limit of sqlqueue.queues.mail is invalid: '100' is not a rate limit");
		});
	}

	@Test
	void failsOnAKeyLimitWithoutKeys() {
		this.runner.withPropertyValues("sqlqueue.queues.mail.key-limits[0].concurrency=2").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.hasMessageContaining("Limit sqlqueue.queues.mail.key-limits[0] is invalid: it names no keys");
		});
	}

	@Test
	void failsOnABadKeyPattern() {
		this.runner
			.withPropertyValues("sqlqueue.queues.mail.key-limits[0].keys=a*b",
					"sqlqueue.queues.mail.key-limits[0].concurrency=2")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("'*' only at its end");
			});
	}

	@Test
	void failsWhenTwoHandlersOfAQueueDeclareDifferentLimitsPerKey() {
		this.runner.withBean(Charges.class).withBean(OtherCharges.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.hasMessageContaining("declare different limits per key for queue 'payments'")
				.hasMessageContaining("#charge")
				.hasMessageContaining("#refund");
		});
	}

	@Test
	void failsOnABadRatePerKey() {
		this.runner.withBean(BadRate.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure())
				.hasStackTraceContaining("BadRate.bad(java.lang.String) is invalid: 'often' is not a rate limit");
		});
	}

	@Test
	void backsOffWhenTheApplicationHasItsOwnFlowControl() {
		this.runner.withUserConfiguration(OwnFlowControl.class)
			.run((context) -> assertThat(context).getBean(FlowControl.class).isSameAs(context.getBean("mine")));
	}

	@org.springframework.context.annotation.Configuration(proxyBeanMethods = false)
	static class OwnFlowControl {

		@org.springframework.context.annotation.Bean
		FlowControl mine(javax.sql.DataSource dataSource, io.sqlqueue.internal.store.Dialect dialect) {
			return new DefaultFlowControl(new FlowStore(dataSource, dialect, null));
		}

	}

	static class Charges {

		@JobHandler(value = "charge", queue = "payments", concurrencyPerKey = 2, ratePerKey = "10/1s")
		void charge(String payload) {
		}

	}

	static class OtherCharges {

		@JobHandler(value = "refund", queue = "payments", concurrencyPerKey = 1)
		void refund(String payload) {
		}

	}

	static class BadRate {

		@JobHandler(value = "bad", ratePerKey = "often")
		void bad(String payload) {
		}

	}

	static class Blocking {

		final CountDownLatch started = new CountDownLatch(3);

		final CountDownLatch release = new CountDownLatch(1);

		@JobHandler(value = "slow", queue = "slow")
		void slow(int payload) throws InterruptedException {
			this.started.countDown();
			this.release.await(30, TimeUnit.SECONDS);
		}

	}

}
