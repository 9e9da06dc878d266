package io.sqlqueue.boot.autoconfigure;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import org.aopalliance.intercept.MethodInterceptor;
import org.junit.jupiter.api.Test;

import org.springframework.aop.framework.ProxyFactory;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import io.sqlqueue.Job;
import io.sqlqueue.JobContext;
import io.sqlqueue.JobHandler;
import io.sqlqueue.JobQueue;
import io.sqlqueue.JobRecord;
import io.sqlqueue.JobStatus;
import io.sqlqueue.handler.HandlerDefinition;
import io.sqlqueue.internal.handler.HandlerRegistry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class JobHandlerRegistrationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
				DataSourceTransactionManagerAutoConfiguration.class, JacksonAutoConfiguration.class,
				SqlQueueAutoConfiguration.class))
		.withPropertyValues("spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
				"sqlqueue.manager.poll-interval=50ms", "sqlqueue.maintenance.reaper-interval=100ms",
				"sqlqueue.manager.shutdown-timeout=1s");

	@Test
	void registersAnnotatedMethods() {
		this.runner.withBean("greeter", Greeter.class).run((context) -> {
			assertThat(context).hasNotFailed();
			HandlerDefinition greet = context.getBean(HandlerRegistry.class).find("greet").orElseThrow();
			assertThat(greet.queue()).isEqualTo("greetings");
			assertThat(greet.maxAttempts()).isEqualTo(3);
			assertThat(greet.timeout()).isEqualTo(Duration.ofSeconds(5));
			assertThat(greet.noRetryFor()).containsExactly(IllegalArgumentException.class);
			assertThat(greet.description()).isEqualTo("greeter#greet");
			HandlerDefinition ping = context.getBean(HandlerRegistry.class).find("ping").orElseThrow();
			assertThat(ping.queue()).isEqualTo(JobQueue.DEFAULT_QUEUE);
			assertThat(ping.maxAttempts()).isNull();
			assertThat(ping.timeout()).isNull();
			assertThat(ping.transactional()).isFalse();
			assertThat(ping.lenientPayload()).isFalse();
		});
	}

	@Test
	void aPayloadOfAnotherShapeFailsThroughBootsMapperUnlessTheHandlerIsLenient() {
		// Boot's JsonMapper ignores unknown properties: the queue's strictness must not depend on it.
		this.runner.withBean("greeter", Greeter.class).withBean("lenient", LenientGreeter.class).run((context) -> {
			assertThat(context.getBean(HandlerRegistry.class).find("greet.lenient").orElseThrow().lenientPayload())
				.isTrue();
			JobQueue jobs = context.getBean(JobQueue.class);
			long strict = jobs.enqueue("greet", java.util.Map.of("customer", "acme", "copies", 7));
			long lenient = jobs.enqueue("greet.lenient", java.util.Map.of("customer", "acme", "copies", 7));
			JobRecord failed = jobs.await(strict, Duration.ofSeconds(20)).job();
			assertThat(failed.status()).isEqualTo(JobStatus.FAILED);
			assertThat(failed.attempts()).isEqualTo(1);
			assertThat(failed.lastError()).contains("PayloadDecodingException")
				.contains("JobHandlerRegistrationTests$Greeting")
				.contains("'name'");
			assertThat(jobs.await(lenient, Duration.ofSeconds(20)).status()).isEqualTo(JobStatus.SUCCEEDED);
		});
	}

	@Test
	void runsATransactionalHandlerInTheTransactionThatCompletesItsJob() {
		this.runner.withBean("ledger", Ledger.class).withPropertyValues("sqlqueue.retry.initial-backoff=50ms").run((context) -> {
			assertThat(context.getBean(HandlerRegistry.class).find("ledger.book").orElseThrow().transactional())
				.isTrue();
			JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
			jdbc.execute("CREATE TABLE ledger (job_id BIGINT NOT NULL, attempt INT NOT NULL)");
			JobQueue jobs = context.getBean(JobQueue.class);
			long id = jobs.enqueue("ledger.book", null);
			await().atMost(Duration.ofSeconds(10))
				.until(() -> jobs.find(id).orElseThrow().status() == io.sqlqueue.JobStatus.SUCCEEDED);
			assertThat(jdbc.queryForList("SELECT attempt FROM ledger WHERE job_id = ?", Integer.class, id))
				.containsExactly(2);
		});
	}

	@Test
	void runsAJobEndToEnd() {
		this.runner.withBean("greeter", Greeter.class).run((context) -> {
			JobQueue jobs = context.getBean(JobQueue.class);
			long id = jobs.enqueue("greet", new Greeting("Ada"));
			assertThat(jobs.find(id)).hasValueSatisfying((job) -> {
				assertThat(job.queue()).isEqualTo("greetings");
				assertThat(job.maxAttempts()).isEqualTo(3);
			});
			JobRecord done = awaitFinished(jobs, id);
			assertThat(done.status()).isEqualTo(JobStatus.SUCCEEDED);
			assertThat(done.result()).isEqualTo("\"Hello, Ada (attempt 1)\"");
		});
	}

	@Test
	void wakesTheManagerOnALocalEnqueue() {
		this.runner.withBean("greeter", Greeter.class)
			.withPropertyValues("sqlqueue.manager.poll-interval=1h")
			.run((context) -> {
				JobQueue jobs = context.getBean(JobQueue.class);
				long id = jobs.enqueue("ping", null);
				assertThat(awaitFinished(jobs, id).status()).isEqualTo(JobStatus.SUCCEEDED);
			});
	}

	@Test
	void invokesHandlersThroughTheirProxy() {
		this.runner.withUserConfiguration(ProxiedGreeter.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean(HandlerRegistry.class).names()).contains("greet", "ping");
			JobQueue jobs = context.getBean(JobQueue.class);
			long id = jobs.enqueue(Job.of("greet", new Greeting("Grace")));
			assertThat(awaitFinished(jobs, id).status()).isEqualTo(JobStatus.SUCCEEDED);
			assertThat(ProxiedGreeter.intercepted.get()).isPositive();
		});
	}

	@Test
	void letsARunningHandlerFinishWhenTheContextCloses() {
		String url = "jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
		long[] id = new long[1];
		this.runner.withPropertyValues("spring.datasource.url=" + url, "sqlqueue.manager.shutdown-timeout=10s")
			.withBean("slow", Slow.class)
			.run((context) -> {
				id[0] = context.getBean(JobQueue.class).enqueue("slow", null);
				assertThat(Slow.started.await(10, TimeUnit.SECONDS)).isTrue();
			});
		JdbcTemplate jdbc = new JdbcTemplate(new SimpleDriverDataSource(new org.h2.Driver(), url, "sa", ""));
		assertThat(jdbc.queryForObject("SELECT status FROM queue_job WHERE id = ?", String.class, id[0]))
			.isEqualTo("SUCCEEDED");
		assertThat(jdbc.queryForObject("SELECT result FROM queue_job WHERE id = ?", String.class, id[0]))
			.isEqualTo("\"done\"");
	}

	@Test
	void failsOnTwoHandlersWithOneName() {
		this.runner.withBean("first", Pinger.class)
			.withBean("second", Pinger.class)
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("'ping'")
				.hasMessageContaining("first#ping")
				.hasMessageContaining("second#ping"));
	}

	@Test
	void failsOnAMethodThatCannotBeAHandler() {
		this.runner.withBean("twoPayloads", TwoPayloads.class)
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("TwoPayloads.handle")
				.hasMessageContaining("more than one payload parameter"));
	}

	@Test
	void failsOnAnInvalidTimeout() {
		this.runner.withBean("badTimeout", BadTimeout.class)
			.run((context) -> assertThat(context).getFailure()
				.hasMessageContaining("BadTimeout.handle")
				.hasMessageContaining("soon"));
	}

	@Test
	void enqueuesWithTheCallersTransaction() {
		this.runner.withPropertyValues("sqlqueue.manager.enabled=false").run((context) -> {
			JobQueue jobs = context.getBean(JobQueue.class);
			TransactionTemplate transaction = new TransactionTemplate(
					context.getBean(PlatformTransactionManager.class));
			JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
			transaction.executeWithoutResult((status) -> {
				jobs.enqueue("ping", null);
				assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM queue_job", Integer.class)).isOne();
				status.setRollbackOnly();
			});
			assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM queue_job", Integer.class)).isZero();
			Long committed = transaction.execute((status) -> jobs.enqueue("ping", null));
			assertThat(jobs.find(committed)).isPresent();
		});
	}

	private static JobRecord awaitFinished(JobQueue jobs, long id) {
		return await().atMost(Duration.ofSeconds(10))
			.pollInterval(Duration.ofMillis(20))
			.until(() -> jobs.find(id), (job) -> job.isPresent() && job.get().status().isFinished())
			.orElseThrow();
	}

	record Greeting(String name) {
	}

	static class Greeter {

		@JobHandler(value = "greet", queue = "greetings", maxAttempts = 3, timeout = "5s",
				noRetryFor = IllegalArgumentException.class)
		String greet(Greeting greeting, JobContext context) {
			return "Hello, " + greeting.name() + " (attempt " + context.attempt() + ")";
		}

		@JobHandler("ping")
		void ping() {
		}

	}

	static class LenientGreeter {

		@JobHandler(value = "greet.lenient", lenientPayload = true)
		String greet(Greeting greeting) {
			return "Hello, " + greeting.name();
		}

	}

	static class Ledger {

		private final JdbcTemplate jdbc;

		Ledger(DataSource dataSource) {
			this.jdbc = new JdbcTemplate(dataSource);
		}

		@JobHandler(value = "ledger.book", transactional = true)
		void book(JobContext context) {
			this.jdbc.update("INSERT INTO ledger (job_id, attempt) VALUES (?, ?)", context.jobId(), context.attempt());
			if (context.attempt() == 1) {
				throw new IllegalStateException("the first attempt's row must roll back");
			}
		}

	}

	static class Slow {

		static final CountDownLatch started = new CountDownLatch(1);

		@JobHandler("slow")
		String run() throws InterruptedException {
			started.countDown();
			Thread.sleep(500);
			return "done";
		}

	}

	static class Pinger {

		@JobHandler("ping")
		void ping() {
		}

	}

	static class TwoPayloads {

		@JobHandler("two")
		void handle(String first, String second) {
		}

	}

	static class BadTimeout {

		@JobHandler(value = "late", timeout = "soon")
		void handle() {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ProxiedGreeter {

		static final AtomicInteger intercepted = new AtomicInteger();

		@Bean
		Greeter greeter() {
			return new Greeter();
		}

		@Bean
		static CountingProxies countingProxies() {
			return new CountingProxies();
		}

	}

	/** Proxies greeters as AOP's auto-proxy creators do: ordered, before the handler post-processor. */
	static class CountingProxies implements BeanPostProcessor, Ordered {

		@Override
		public Object postProcessAfterInitialization(Object bean, String beanName) {
			if (!(bean instanceof Greeter)) {
				return bean;
			}
			ProxyFactory proxy = new ProxyFactory(bean);
			proxy.setProxyTargetClass(true);
			proxy.addAdvice((MethodInterceptor) (invocation) -> {
				ProxiedGreeter.intercepted.incrementAndGet();
				return invocation.proceed();
			});
			return proxy.getProxy();
		}

		@Override
		public int getOrder() {
			return Ordered.HIGHEST_PRECEDENCE;
		}

	}

}
