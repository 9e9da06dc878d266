package io.sqlqueue.sample;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.stereotype.Component;

import io.sqlqueue.JobContext;
import io.sqlqueue.JobHandler;

/**
 * The mail handlers. They run on the queue's workers, in the {@code mail} queue, after
 * the sign-up that enqueued them has committed. What they return is stored as the job's
 * result. The order's mail is sent from its own job's step instead.
 */
@Component
public class Mailer {

	private static final Logger logger = LoggerFactory.getLogger(Mailer.class);

	private final SentMails sentMails;

	public Mailer(SentMails sentMails) {
		this.sentMails = sentMails;
	}

	@JobHandler(value = "mail.welcome", queue = "mail")
	public MailReceipt sendWelcome(WelcomeMail mail, JobContext context) {
		MailReceipt receipt = this.sentMails.send(context.jobId(), mail.userId(), "welcome", mail.email(),
				"Welcome, " + mail.name() + "!");
		logger.info("Welcome mail to {} (job {}, attempt {}): {}", mail.email(), context.jobId(), context.attempt(),
				receipt.messageId());
		return receipt;
	}

	@JobHandler(value = "mail.followup", queue = "mail")
	public MailReceipt sendFollowup(FollowupMail mail, JobContext context) {
		MailReceipt receipt = this.sentMails.send(context.jobId(), mail.userId(), "followup", mail.email(),
				"How is it going, " + mail.name() + "?");
		logger.info("Follow-up mail to {} (job {}): {}", mail.email(), context.jobId(), receipt.messageId());
		return receipt;
	}

	/** Tells the customer their order has shipped: the {@code mail} step of {@link OrderFulfilment}. */
	public MailReceipt sendOrderShipped(long jobId, String email, String item) {
		MailReceipt receipt = this.sentMails.sendForJob(jobId, "order-shipped", email, "Your " + item + " is on its way");
		logger.info("Order mail to {} (job {}): {}", email, jobId, receipt.messageId());
		return receipt;
	}

}
