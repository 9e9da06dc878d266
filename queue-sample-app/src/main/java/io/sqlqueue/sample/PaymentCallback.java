package io.sqlqueue.sample;

/**
 * What the payment provider calls back with ({@code POST /orders/{jobId}/payment-callback}),
 * and the payload of the {@code payment} signal that the order's job awaits.
 *
 * @param reference the provider's reference of the charge
 * @param approved whether the payment went through
 */
public record PaymentCallback(String reference, boolean approved) {

}
