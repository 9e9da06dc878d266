package io.sqlqueue.testkit.docs;

// tag::handler[]
import java.time.Duration;

import io.sqlqueue.JobContext;
import io.sqlqueue.JobHandler;

// end::handler[]
import org.springframework.stereotype.Component;

/**
 * The {@code order.fulfil} handler of docs/durable-steps.md, as the page shows it: the
 * page's block is the region between the {@code handler} tags, which the sample app's
 * {@code DocumentedSourcesTests} compares with the page. {@link DurableStepsDocScenarios}
 * runs it with the test of docs/testing.md.
 */
@Component
class OrderFulfilment {

	// tag::handler[]
	record Order(long id, long cents) {
	}

	record PaymentCallback(String reference, boolean approved) {
	}

	@JobHandler("order.fulfil")
	String fulfil(Order order, JobContext context) throws Exception {
		String receipt = context.step("charge", String.class, () -> "receipt-" + order.id());     // your payment client
		PaymentCallback paid = context.awaitSignal("payment", PaymentCallback.class, Duration.ofHours(1))
				.orElseThrow(() -> new IllegalStateException("no payment callback within the hour"));
		context.transactionalStep("ship", () -> {
			// writes through the queue's DataSource commit with the step's record, or not at all
		});
		context.sleep(Duration.ofDays(3));
		context.step("mail", () -> { /* the "how was it?" mail */ });
		return receipt + " " + paid.reference();
	}
	// end::handler[]

}
