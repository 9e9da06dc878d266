package io.sqlqueue;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.sqlqueue.Batch;
import io.sqlqueue.Workflow;
import io.sqlqueue.handler.HandlerDefinition;
import io.sqlqueue.handler.UnknownHandlerPolicy;
import io.sqlqueue.internal.DefaultJobQueue;
import io.sqlqueue.internal.await.JobAwaiter;
import io.sqlqueue.internal.handler.UnknownHandlers;
import io.sqlqueue.observation.JobObservations;
import io.sqlqueue.test.QueueFixture;
import io.sqlqueue.test.TestDatabase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * An enqueue for a handler this instance does not have, on every database: refused before
 * anything is written, or written where the rule for its queue puts it.
 * {@link QueueConformanceTests} implements this.
 */
interface UnknownHandlerConformance extends ConformanceSupport {

	/** The check does not depend on the claim method: the compare-and-set variants would only run these again. */
	private void assumeOwnClaimMethod() {
		assumeTrue(fixture().claimMethod() == isolatedDatabase().dialect().claimMethod(),
				"Enqueue checks do not depend on the claim method; run with the database's own");
	}

	private JobQueue queue(UnknownHandlerPolicy policy, List<String> remote) {
		QueueFixture fixture = fixture();
		fixture.register(HandlerDefinition.of("mail.welcome", "mail", (payload, context) -> null));
		return new DefaultJobQueue(fixture.store(), fixture.codec(), fixture.handlers(), QueueFixture.FAST_RETRIES,
				JobListener.NONE, new JobAwaiter(fixture.store(), fixture.codec()), JobObservations.NONE,
				new UnknownHandlers(fixture.handlers(), policy, remote, () -> true));
	}

	@Test
	default void anUnknownHandlerUnderFailWritesNothingInAnyKindOfEnqueue() {
		assumeOwnClaimMethod();
		JobQueue jobs = queue(UnknownHandlerPolicy.FAIL, List.of());
		Job known = Job.of("mail.welcome", "ada@example.com");
		Job typo = Job.of("mail.welcom", "ada@example.com");
		assertThatThrownBy(() -> jobs.enqueue(typo)).isInstanceOf(InvalidJobException.class)
			.hasMessageContaining("Did you mean 'mail.welcome'?");
		assertThatThrownBy(() -> jobs.enqueueAll(List.of(known, typo))).isInstanceOf(InvalidJobException.class);
		assertThatThrownBy(() -> jobs.enqueue(Workflow.create().step("send", known).step("typo", typo, "send")))
			.isInstanceOf(InvalidJobException.class);
		assertThatThrownBy(() -> jobs.enqueue(Batch.of(List.of(known)).callback(typo)))
			.isInstanceOf(InvalidJobException.class);
		assertThat(fixture().count("1 = 1")).isZero();
		long id = jobs.enqueue(known);
		assertThat(fixture().job(id).queue()).isEqualTo("mail");
	}

	/**
	 * Under the default (warn) the job is written: a job's queue comes from this instance's
	 * handler, else from {@link Job#queue(String)}, else it is {@value JobQueue#DEFAULT_QUEUE}.
	 */
	@Test
	default void aJobForAHandlerThisInstanceLacksTakesTheQueueItNamesElseTheDefault() {
		assumeOwnClaimMethod();
		JobQueue jobs = queue(UnknownHandlerPolicy.WARN, List.of("billing.*"));
		long typo = jobs.enqueue("mail.welcom", "ada@example.com");
		long remote = jobs.enqueue(Job.of("billing.charge", 42).queue("billing"));
		long unnamed = jobs.enqueue("billing.refund", 7);
		assertThat(fixture().job(typo).queue()).isEqualTo(JobQueue.DEFAULT_QUEUE);
		assertThat(fixture().job(typo).status()).isEqualTo(JobStatus.QUEUED);
		assertThat(fixture().job(remote).queue()).isEqualTo("billing");
		assertThat(fixture().job(unnamed).queue()).isEqualTo(JobQueue.DEFAULT_QUEUE);
		assertThat(jobs.unknownHandlerNotice("mail.welcom")).isPresent();
		assertThat(jobs.unknownHandlerNotice("billing.charge")).isEmpty();
	}

}
