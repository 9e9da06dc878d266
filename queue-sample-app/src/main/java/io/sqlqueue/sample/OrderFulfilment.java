package io.sqlqueue.sample;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.stereotype.Component;

import io.sqlqueue.JobContext;
import io.sqlqueue.JobHandler;
import io.sqlqueue.NonRetryableException;

/**
 * Fulfils an order as one handler with durable steps (docs/durable-steps.md), in the
 * {@code orders} queue: charge, wait for the payment provider's callback, ship, mail. Each
 * run of the job picks up where the last one stopped: the charge is asked for once, however
 * often the job runs; while it waits for the callback the job is parked ({@code QUEUED}, due
 * at the wait's timeout), holding no worker; the shipment row commits with the step's record,
 * so it is written exactly once.
 */
@Component
public class OrderFulfilment {

	/** The name of the signal {@code POST /orders/{jobId}/payment-callback} sends. */
	public static final String PAYMENT = "payment";

	private static final Logger logger = LoggerFactory.getLogger(OrderFulfilment.class);

	private final PaymentClient payments;

	private final Shipments shipments;

	private final Mailer mailer;

	private final SampleProperties properties;

	public OrderFulfilment(PaymentClient payments, Shipments shipments, Mailer mailer, SampleProperties properties) {
		this.payments = payments;
		this.shipments = shipments;
		this.mailer = mailer;
		this.properties = properties;
	}

	@JobHandler(value = "order.fulfil", queue = "orders")
	public OrderFulfilled fulfil(FulfilOrder order, JobContext context) throws Exception {
		long jobId = context.jobId();
		// A call to another system: a plain step, outside any transaction.
		String reference = context.step("charge", String.class,
				() -> this.payments.charge(jobId, order.item(), order.cents()));
		// A timed-out wait stays timed out on every later run, so retries could not help.
		PaymentCallback payment = context.awaitSignal(PAYMENT, PaymentCallback.class, this.properties.paymentTimeout())
			.orElseThrow(() -> new NonRetryableException(
					"No payment callback for " + reference + " within " + this.properties.paymentTimeout()));
		if (!payment.reference().equals(reference)) {
			throw new NonRetryableException(
					"The payment callback is for " + payment.reference() + ", not for this order's " + reference);
		}
		if (!payment.approved()) {
			throw new NonRetryableException("Payment " + reference + " was declined");
		}
		long shipmentId = context.transactionalStep("ship", Long.class,
				() -> this.shipments.ship(jobId, order.item(), reference));
		MailReceipt mail = context.step("mail", MailReceipt.class,
				() -> this.mailer.sendOrderShipped(jobId, order.email(), order.item()));
		logger.info("Order job {} fulfilled: {} shipped as shipment {}", jobId, order.item(), shipmentId);
		return new OrderFulfilled(reference, shipmentId, mail.messageId());
	}

}
