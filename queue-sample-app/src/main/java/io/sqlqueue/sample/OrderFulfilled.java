package io.sqlqueue.sample;

/**
 * What an {@code order.fulfil} job returns; the queue stores it as the job's result (JSON).
 *
 * @param paymentReference the charge's reference, confirmed by the payment callback
 * @param shipmentId the row the {@code ship} step wrote in {@code shipment}
 * @param messageId the mail that told the customer
 */
public record OrderFulfilled(String paymentReference, long shipmentId, String messageId) {

}
