package io.sqlqueue.sample;

/**
 * What a mail handler returns; the queue stores it as the job's result (JSON).
 *
 * @param messageId the id the "mail server" gave the message
 * @param recipient where it went
 * @param resent whether this attempt found the mail already sent by an earlier attempt
 */
public record MailReceipt(String messageId, String recipient, boolean resent) {

}
