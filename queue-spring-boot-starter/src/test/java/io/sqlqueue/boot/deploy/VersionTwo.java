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
 * The next release: the first one's work handlers unchanged; a v1-only schedule dropped and a
 * schedule of its own added; a new queue, {@code reports}, with a limit only it declares; and
 * the durable order handler changed under parked jobs, behind a patch marker.
 */
@Configuration(proxyBeanMethods = false)
@ImportAutoConfiguration({ DataSourceAutoConfiguration.class, DataSourceTransactionManagerAutoConfiguration.class,
		JacksonAutoConfiguration.class, SqlQueueAutoConfiguration.class })
class VersionTwo {

	static final Map<String, Object> PROPERTIES = Map.of("sqlqueue.queues.limited.global-concurrency", 2,
			"sqlqueue.queues.reports.global-concurrency", 1);

	@Bean
	VersionOne.Work work(Ledger ledger, Environment environment) {
		return new VersionOne.Work(ledger, environment.getRequiredProperty("sqlqueue.manager.worker-id"));
	}

	@Bean
	Reports reports(Ledger ledger) {
		return new Reports(ledger);
	}

	@Bean
	Orders orders(Ledger ledger) {
		return new Orders(ledger);
	}

	static class Reports {

		private final Ledger ledger;

		Reports(Ledger ledger) {
			this.ledger = ledger;
		}

		/** A queue only this version has; its limit must hold whatever the first version does. */
		@JobHandler(value = "report", queue = "reports")
		void report(long n) throws Exception {
			this.ledger.runningIn("reports", () -> Thread.sleep(40));
			this.ledger.finished("report " + n);
		}

		@JobHandler("v2-tick")
		@Recurring(name = "v2-tick", every = "1s", misfire = MisfirePolicy.EACH, overlap = OverlapPolicy.ALLOW)
		void tick() {
		}

	}

	static class Orders {

		private final Ledger ledger;

		Orders(Ledger ledger) {
			this.ledger = ledger;
		}

		/**
		 * Now sends a receipt with the parcel, for orders that start under this code: an order
		 * the first version charged and parked goes on down the old branch.
		 */
		@JobHandler("order")
		void process(String order, JobContext context) throws Exception {
			context.step("charge", () -> this.ledger.finished("charge " + order));
			boolean receipt = context.patched("receipt");
			context.awaitSignal("go", String.class, Duration.ofMinutes(10));
			context.step("ship", () -> this.ledger.shipped(order, receipt ? "v2 with receipt" : "v2"));
		}

	}

}
