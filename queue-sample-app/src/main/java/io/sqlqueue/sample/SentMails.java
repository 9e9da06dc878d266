package io.sqlqueue.sample;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * The "mail server" of this sample: a mail counts as sent when it has a row in
 * {@code sent_mail}. One mail of each kind per user (a unique key), so a job that runs
 * twice (delivery is at-least-once) does not send twice. A mail that is not to a user (an
 * order's) is one of each kind per job instead.
 */
@Repository
public class SentMails {

	private final JdbcClient jdbc;

	public SentMails(JdbcClient jdbc) {
		this.jdbc = jdbc;
	}

	/** Sends a mail of this kind to this user unless one was sent already; says which. */
	public MailReceipt send(long jobId, long userId, String kind, String recipient, String subject) {
		Optional<String> earlier = messageId(userId, kind);
		if (earlier.isPresent()) {
			return new MailReceipt(earlier.get(), recipient, true);
		}
		String messageId = "<" + UUID.randomUUID() + "@sample.sqlqueue.io>";
		try {
			this.jdbc.sql("""
					INSERT INTO sent_mail (job_id, user_id, kind, recipient, subject, message_id)
					VALUES (:jobId, :userId, :kind, :recipient, :subject, :messageId)""")
				.param("jobId", jobId)
				.param("userId", userId)
				.param("kind", kind)
				.param("recipient", recipient)
				.param("subject", subject)
				.param("messageId", messageId)
				.update();
			return new MailReceipt(messageId, recipient, false);
		}
		catch (DuplicateKeyException ex) {
			// Another attempt of the same job got there first.
			return new MailReceipt(messageId(userId, kind).orElseThrow(), recipient, true);
		}
	}

	/**
	 * Sends a mail of this kind for this job, to someone who need not be a user, unless the
	 * job sent one already (a plain step's body may run again: docs/durable-steps.md).
	 */
	public MailReceipt sendForJob(long jobId, String kind, String recipient, String subject) {
		Optional<String> earlier = messageIdOfJob(jobId, kind);
		if (earlier.isPresent()) {
			return new MailReceipt(earlier.get(), recipient, true);
		}
		String messageId = "<" + UUID.randomUUID() + "@sample.sqlqueue.io>";
		try {
			this.jdbc.sql("""
					INSERT INTO sent_mail (job_id, kind, recipient, subject, message_id)
					VALUES (:jobId, :kind, :recipient, :subject, :messageId)""")
				.param("jobId", jobId)
				.param("kind", kind)
				.param("recipient", recipient)
				.param("subject", subject)
				.param("messageId", messageId)
				.update();
			return new MailReceipt(messageId, recipient, false);
		}
		catch (DuplicateKeyException ex) {
			return new MailReceipt(messageIdOfJob(jobId, kind).orElseThrow(), recipient, true);
		}
	}

	private Optional<String> messageIdOfJob(long jobId, String kind) {
		return this.jdbc.sql("SELECT message_id FROM sent_mail WHERE job_id = :jobId AND kind = :kind")
			.param("jobId", jobId)
			.param("kind", kind)
			.query(String.class)
			.optional();
	}

	private Optional<String> messageId(long userId, String kind) {
		return this.jdbc.sql("SELECT message_id FROM sent_mail WHERE user_id = :userId AND kind = :kind")
			.param("userId", userId)
			.param("kind", kind)
			.query(String.class)
			.optional();
	}

	/** The mails sent to a user, oldest first. */
	public List<Mail> forUser(long userId) {
		return this.jdbc.sql("""
				SELECT kind, recipient, subject, message_id, job_id, sent_at FROM sent_mail
				WHERE user_id = :userId ORDER BY id""")
			.param("userId", userId)
			.query((rs, row) -> new Mail(rs.getString("kind"), rs.getString("recipient"), rs.getString("subject"),
					rs.getString("message_id"), rs.getLong("job_id"),
					rs.getObject("sent_at", OffsetDateTime.class).toInstant()))
			.list();
	}

	/** A row of {@code sent_mail}. */
	public record Mail(String kind, String recipient, String subject, String messageId, long jobId, Instant sentAt) {

	}

}
