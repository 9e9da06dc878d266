package io.sqlqueue.sample;

import java.time.Instant;
import java.time.LocalDate;

import io.sqlqueue.JobQueue;
import io.sqlqueue.admin.QueueAdmin;
import io.sqlqueue.schedule.Schedules;

/**
 * What the documented snippets use without declaring it: the reader's own types and the
 * beans a snippet's class would have injected (see {@link DocumentedSnippetsTests}). Only
 * compiled, never run, so the fields stay unset.
 */
public class SnippetContext {

	protected JobQueue jobs;

	protected Schedules schedules;

	protected QueueAdmin admin;

	protected Reports reports;

	protected ReportRequests reportRequests;

	protected Purchase purchase;

	public record User(String email, String name) {
	}

	public interface Users {

		void save(User user);

	}

	public record WelcomeMail(String email, String name) {
	}

	public record MailReceipt(String messageId) {
	}

	public interface MailClient {

		MailReceipt send(String to, String subject);

	}

	public record Report(LocalDate day) {
	}

	public interface Reports {

		long request(String kind, Instant tick);

	}

	public record ReportRequest(String kind) {
	}

	public record ReportResult(String summary) {
	}

	public interface ReportRequests {

		long request(ReportRequest request);

	}

	public record Charge(long cents) {
	}

	public record Purchase(long orderId) {
	}

	/** The payload of durable-steps.md's {@code order.fulfil}, which testing.md's test enqueues. */
	public record Order(long id, long cents) {
	}

	/** The signal durable-steps.md's {@code order.fulfil} awaits, which testing.md's test sends. */
	public record PaymentCallback(String reference, boolean approved) {
	}

	public record Photo(String path) {
	}

}
