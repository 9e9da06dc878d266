package io.sqlqueue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import io.sqlqueue.admin.AdminResult;
import io.sqlqueue.admin.AuditEntry;
import io.sqlqueue.admin.QueueAdmin;
import io.sqlqueue.admin.Refusal;
import io.sqlqueue.admin.RefusedException;
import io.sqlqueue.internal.admin.DefaultQueueAdmin;
import io.sqlqueue.internal.maintenance.Pruner;
import io.sqlqueue.internal.store.Lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The audit log of operator actions on every database: each action of {@link QueueAdmin}
 * that changed something writes one entry (who, what, on what, how many jobs, when on the
 * database's clock), one that changed nothing writes none, and entries are pruned after their
 * retention. {@link QueueConformanceTests} implements this.
 */
interface AuditConformance extends ConformanceSupport {

	private QueueAdmin auditedAdmin() {
		return new DefaultQueueAdmin(fixture().queue(), fixture().store(), null, null, null);
	}

	private int auditRows() {
		return fixture().jdbc().queryForObject("SELECT COUNT(*) FROM " + table("queue_audit"), Integer.class);
	}

	private long failedJob(String handler) {
		long id = fixture().queue().enqueue(Job.of(handler, null).maxAttempts(1));
		JobRecord job = claim("default", 1, handler).get(0);
		assertThat(fixture().store().fail(new Lease(job.id(), job.leaseToken()), "broken")).isTrue();
		return id;
	}

	@Test
	default void eachActionThatChangedSomethingWritesOneEntryNamingWhoAndWhat() {
		long failed = failedJob("audit.work");
		long queued = fixture().queue().enqueue("audit.other", null);
		// A job waiting in the queue makes it one that may be paused.
		fixture().queue().enqueue("audit.waits", null);
		QueueAdmin admin = auditedAdmin();
		assertThat(admin.by("alice").retry(failed).done()).isTrue();
		assertThat(admin.by("bob").cancel(queued).done()).isTrue();
		assertThat(admin.by("carol").pauseQueue("default").done()).isTrue();
		assertThat(admin.pauseQueue("default", "dave").done()).as("paused already: a no-op").isFalse();
		assertThat(admin.resumeQueue("default").done()).isTrue();
		long again = failedJob("audit.bulk");
		assertThat(admin.by("erin").retryFailed("default", "audit.bulk").ids()).containsExactly(again);

		List<AuditEntry> entries = admin.audit(10);
		assertThat(entries).extracting(AuditEntry::action)
			.containsExactly("retry-failed", "resume-queue", "pause-queue", "cancel", "retry");
		assertThat(entries).extracting(AuditEntry::actor).containsExactly("erin", null, "carol", "bob", "alice");
		AuditEntry retry = entries.get(4);
		assertThat(retry.jobId()).isEqualTo(failed);
		assertThat(retry.jobs()).isEqualTo(1);
		assertThat(entries.get(3).jobId()).isEqualTo(queued);
		assertThat(entries.get(2).queue()).isEqualTo("default");
		assertThat(entries.get(0).queue()).isEqualTo("default");
		assertThat(entries.get(0).jobs()).isEqualTo(1);
		assertThat(entries.get(0).detail()).isEqualTo("handler audit.bulk");
		for (int i = 1; i < entries.size(); i++) {
			assertThat(entries.get(i - 1).id()).isGreaterThan(entries.get(i).id());
			assertThat(entries.get(i - 1).at()).isAfterOrEqualTo(entries.get(i).at());
		}
	}

	@Test
	default void aRefusedOrMalformedActionWritesNothing() {
		QueueAdmin admin = auditedAdmin().by("mallory");
		assertThat(admin.retry(424242).refusal()).isEqualTo(Refusal.NO_SUCH_JOB);
		assertThat(admin.cancel(424242).refusal()).isEqualTo(Refusal.NO_SUCH_JOB);
		long queued = fixture().queue().enqueue("audit.idle", null);
		assertThat(admin.retry(queued).refusal()).isEqualTo(Refusal.NOT_FAILED);
		assertThat(admin.retryFailed(null, null).done()).isFalse();
		assertThat(admin.resumeQueue("default").done()).isFalse();
		assertThat(admin.pauseSchedule("none").done()).isFalse();
		assertThatExceptionOfType(RefusedException.class).isThrownBy(() -> admin.pauseQueue("bad name"));
		assertThatExceptionOfType(RefusedException.class).isThrownBy(() -> admin.retryFailed(null, null, 0));
		assertThatExceptionOfType(RefusedException.class).isThrownBy(() -> admin.audit(0));
		assertThatExceptionOfType(RefusedException.class).isThrownBy(() -> admin.audit(QueueAdmin.MAX_BULK + 1));
		assertThat(auditRows()).isZero();
		assertThat(admin.audit(10)).isEmpty();
	}

	@Test
	default void aRetryAndItsEntryCommitOrRollBackTogetherInTheCallersTransaction() {
		long failed = failedJob("audit.tx");
		QueueAdmin admin = auditedAdmin().by("tx-operator");
		try {
			fixture().store().inTransaction(() -> {
				assertThat(admin.retry(failed).done()).isTrue();
				throw new IllegalStateException("the caller rolls back");
			});
		}
		catch (IllegalStateException expected) {
			// rolled back
		}
		assertThat(fixture().status(failed)).isEqualTo(JobStatus.FAILED);
		assertThat(auditRows()).isZero();
		assertThat(admin.retry(failed).done()).isTrue();
		assertThat(admin.audit(5)).singleElement().satisfies((entry) -> {
			assertThat(entry.action()).isEqualTo("retry");
			assertThat(entry.actor()).isEqualTo("tx-operator");
		});
	}

	/**
	 * Operators race to retry and cancel the same jobs: each action that won writes exactly
	 * one entry, and none that lost writes one.
	 */
	@Test
	default void racingOperatorsWriteOneEntryPerActionThatWon() throws Exception {
		List<Long> ids = new ArrayList<>();
		for (int i = 0; i < 20; i++) {
			ids.add(failedJob("audit.race"));
		}
		QueueAdmin admin = auditedAdmin();
		CountDownLatch go = new CountDownLatch(1);
		List<CompletableFuture<Integer>> operators = new ArrayList<>();
		for (int operator = 0; operator < 4; operator++) {
			QueueAdmin acting = admin.by("operator-" + operator);
			operators.add(CompletableFuture.supplyAsync(() -> {
				try {
					go.await();
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
				int won = 0;
				for (long id : ids) {
					won += acting.retry(id).done() ? 1 : 0;
					won += acting.cancel(id).done() ? 1 : 0;
				}
				return won;
			}));
		}
		go.countDown();
		int won = 0;
		for (CompletableFuture<Integer> operator : operators) {
			won += operator.get(60, TimeUnit.SECONDS);
		}
		List<AuditEntry> entries = admin.audit(QueueAdmin.MAX_BULK);
		assertThat(entries).hasSize(won);
		for (long id : ids) {
			// Each job is failed once, so retried once; the operator that retried it cancels it
			// after, if no other did first: cancelled once.
			assertThat(entries.stream().filter((entry) -> entry.jobId() == id && entry.action().equals("retry")))
				.hasSize(1);
			assertThat(entries.stream().filter((entry) -> entry.jobId() == id && entry.action().equals("cancel")))
				.hasSize(1);
		}
	}

	@Test
	default void entriesArePrunedAfterTheirRetention() {
		fixture().queue().enqueue("audit.waits", null);
		QueueAdmin admin = auditedAdmin().by("ops");
		assertThat(admin.pauseQueue("default").done()).isTrue();
		assertThat(admin.resumeQueue("default").done()).isTrue();
		Pruner keeps = new Pruner(fixture().store(), fixture().scheduler(), Duration.ofHours(1), Duration.ZERO,
				Duration.ZERO, Duration.ZERO, Duration.ofDays(30));
		assertThat(keeps.pruneAudit()).isZero();
		// Both entries older than the 10 ms retention below, by the database's clock.
		String pastRetention = "SELECT COUNT(*) FROM " + table("queue_audit") + " WHERE acted_at < "
				+ isolatedDatabase().dialect().nowPlusMillis();
		await().atMost(WAIT).pollInterval(Duration.ofMillis(10))
			.until(() -> fixture().jdbc().queryForObject(pastRetention, Integer.class, -10L) == 2);
		Pruner prunes = new Pruner(fixture().store(), fixture().scheduler(), Duration.ofHours(1), Duration.ZERO,
				Duration.ZERO, Duration.ZERO, Duration.ofMillis(10));
		assertThat(prunes.pruneAudit()).isEqualTo(2);
		assertThat(admin.audit(10)).isEmpty();
		AdminResult paused = admin.pauseQueue("default");
		assertThat(paused.done()).isTrue();
		assertThat(admin.audit(10)).hasSize(1);
	}

}
