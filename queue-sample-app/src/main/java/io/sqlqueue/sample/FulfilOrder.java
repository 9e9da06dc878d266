package io.sqlqueue.sample;

/**
 * The payload of an {@code order.fulfil} job: what was ordered, for how much, and whom to mail
 * when it ships. Stored as JSON in the job.
 */
public record FulfilOrder(String item, long cents, String email) {

}
