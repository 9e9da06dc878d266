package io.sqlqueue.boot.deploy;

import java.time.Duration;
import java.util.Map;

import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

import io.sqlqueue.JobContext;
import io.sqlqueue.JobHandler;
import io.sqlqueue.boot.autoconfigure.SqlQueueAutoConfiguration;
import io.sqlqueue.boot.schedule.Recurring;
import io.sqlqueue.schedule.MisfirePolicy;
import io.sqlqueue.schedule.OverlapPolicy;

/**
 * The application as released first: work in two queues (one limited), a schedule only it
 * declares and one both versions declare, and a durable order handler that charges, waits
 * for a signal, then ships.
 */
@Configuration(proxyBeanMethods = false)
@ImportAutoConfiguration({ DataSourceAutoConfiguration.class, DataSourceTransactionManagerAutoConfiguration.class,
		JacksonAutoConfiguration.class, SqlQueueAutoConfiguration.class })
class VersionOne {

	/** Its configuration: the limit on {@code limited}, which the next version keeps. */
	static final Map<String, Object> PROPERTIES = Map.of("sqlqueue.queues.limited.global-concurrency", 2);

	@Bean
	Work work(Ledger ledger, Environment environment) {
		return new Work(ledger, environment.getRequiredProperty("sqlqueue.manager.worker-id"));
	}

	@Bean
	Ticks ticks() {
		return new Ticks();
	}

	@Bean
	Orders orders(Ledger ledger) {
		return new Orders(ledger);
	}

	/** Handlers both versions have, unchanged. */
	static class Work {

		private final Ledger ledger;

		private final String instance;

		Work(Ledger ledger, String instance) {
			this.ledger = ledger;
			this.instance = instance;
		}

		/** Most jobs are short; every 20th outlasts the shutdown timeout, so stops find it running. */
		@JobHandler("work")
		void work(long n) throws Exception {
			if (n % 20 == 0) {
				this.ledger.longJob(this.instance, () -> Thread.sleep(3_000));
			}
			else {
				Thread.sleep(15);
			}
			this.ledger.finished("work " + n);
		}

		@JobHandler(value = "limited", queue = "limited")
		void limited(long n) throws Exception {
			this.ledger.runningIn("limited", () -> Thread.sleep(40));
			this.ledger.finished("limited " + n);
		}

		/** Fires every second, each tick (misfire EACH, overlap ALLOW), on both versions. */
		@JobHandler("shared-tick")
		@Recurring(name = "shared-tick", every = "1s", misfire = MisfirePolicy.EACH, overlap = OverlapPolicy.ALLOW)
		void sharedTick() {
		}

	}

	static class Ticks {

		/** Only this version declares it. */
		@JobHandler("v1-tick")
		@Recurring(name = "v1-tick", every = "1s", misfire = MisfirePolicy.EACH, overlap = OverlapPolicy.ALLOW)
		void tick() {
		}

	}

	static class Orders {

		private final Ledger ledger;

		Orders(Ledger ledger) {
			this.ledger = ledger;
		}

		@JobHandler("order")
		void process(String order, JobContext context) throws Exception {
			context.step("charge", () -> this.ledger.finished("charge " + order));
			context.awaitSignal("go", String.class, Duration.ofMinutes(10));
			context.step("ship", () -> this.ledger.shipped(order, "v1"));
		}

	}

}
