package io.sqlqueue.sample;

import org.springframework.dao.DuplicateKeyException;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

import io.sqlqueue.Job;
import io.sqlqueue.JobQueue;

/**
 * Signs users up. The user and the jobs to mail them are written in one transaction (the
 * transactional outbox): when the sign-up fails, no mail job exists; when it commits, the
 * mails will be sent even if the application stops right after.
 */
@Service
public class SignupService {

	private final Users users;

	private final JobQueue jobs;

	private final SampleProperties properties;

	public SignupService(Users users, JobQueue jobs, SampleProperties properties) {
		this.users = users;
		this.jobs = jobs;
		this.properties = properties;
	}

	/**
	 * Saves the user and enqueues the welcome mail (due now) and the follow-up mail (due
	 * after {@code sample.followup-delay}).
	 * @throws EmailTakenException when a user with this email exists; nothing is written
	 */
	@Transactional
	public Signup signUp(String email, String name) {
		long userId;
		try {
			userId = this.users.insert(email, name);
		}
		catch (DuplicateKeyException ex) {
			throw new EmailTakenException(email);
		}
		// Labelled so that an operator finds a user's mails (docs/operations.md#searching-jobs).
		long welcomeJobId = this.jobs.enqueue(Job.of("mail.welcome", new WelcomeMail(userId, email, name))
			.tags("signup")
			.meta("user", String.valueOf(userId)));
		long followupJobId = this.jobs.enqueue(Job.of("mail.followup", new FollowupMail(userId, email, name))
			.delay(this.properties.followupDelay())
			.tags("signup")
			.meta("user", String.valueOf(userId)));
		return new Signup(userId, welcomeJobId, followupJobId);
	}

	/** What a sign-up created. */
	public record Signup(long userId, long welcomeJobId, long followupJobId) {

	}

	/** A sign-up with an email that is already registered. */
	public static class EmailTakenException extends RuntimeException {

		public EmailTakenException(String email) {
			super("A user with email " + email + " already exists");
		}

	}

}
