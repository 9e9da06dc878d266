package io.sqlqueue.testkit.docs;

// tag::test[]
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;

import io.sqlqueue.testkit.RanJob;
import io.sqlqueue.testkit.SqlQueueTester;

import static org.assertj.core.api.Assertions.assertThat;

// end::test[]
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;

import io.sqlqueue.JobQueue;
import io.sqlqueue.testkit.docs.OrderFulfilment.Order;
import io.sqlqueue.testkit.docs.OrderFulfilment.PaymentCallback;

/**
 * The durable-steps test of docs/testing.md, run against the handler of docs/durable-steps.md
 * ({@link OrderFulfilment}): the two pages' blocks are this class's and that class's
 * tagged regions (the sample app's {@code DocumentedSourcesTests} compares them), so what
 * the pages show together is compiled and run together, on the database of the subclass.
 */
@SpringBootTest(classes = DurableStepsDocScenarios.App.class)
abstract class DurableStepsDocScenarios {

	/** The application's {@code JobQueue}, which the page's test calls {@code jobs}. */
	@Autowired
	JobQueue jobs;

	// tag::test[]
	@Autowired
	SqlQueueTester tester;

	@Test
	void anOrderWaitsForItsPaymentThenSleeps() {
		long id = jobs.enqueue("order.fulfil", new Order(7, 1999));
		assertThat(tester.run(id).parked()).isTrue();        // waits for the payment's callback
		tester.signal(id, "payment", new PaymentCallback("ref-7", true));   // the type the handler awaits
		assertThat(tester.runDue()).singleElement().matches(RanJob::parked);   // resumes; parks in its sleep
		tester.wakeUp(id);
		RanJob done = tester.runDue().get(0);                // resumes: mails, returns
		assertThat(done.succeeded()).isTrue();
		assertThat(done.result(String.class)).isEqualTo("receipt-7 ref-7");
	}
	// end::test[]

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import(OrderFulfilment.class)
	static class App {

	}

}
