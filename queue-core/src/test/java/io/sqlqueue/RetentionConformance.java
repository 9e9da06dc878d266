package io.sqlqueue;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.sqlqueue.internal.store.Completion;
import io.sqlqueue.internal.store.JobStore;
import io.sqlqueue.internal.store.Lease;
import io.sqlqueue.internal.store.PrunedJobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Retention on every database: pruning deletes only finished jobs past their retention.
 * {@link QueueConformanceTests} implements this.
 */
interface RetentionConformance extends ConformanceSupport {

	@Test
	default void pruneDeletesOnlyFinishedJobsPastTheirRetention() {
		List<Long> ids = fixture().queue()
			.enqueueAll(List.of(Job.of("work", 1), Job.of("work", 2), Job.of("work", 3), Job.of("work", 4)));
		List<JobRecord> claimed = claim("default", 3, "work");
		fixture().store()
			.complete(List.of(new Completion(new Lease(claimed.get(0).id(), claimed.get(0).leaseToken()), null)));
		fixture().store().fail(new Lease(claimed.get(1).id(), claimed.get(1).leaseToken()), "broken");
		fixture().queue().cancel(ids.get(3));
		await().pollDelay(Duration.ofMillis(50)).atMost(WAIT).until(() -> true);
		JobStore store = fixture().store();
		assertThat(store.pruneFinished(JobStatus.SUCCEEDED, Duration.ofHours(1), 100)).isZero();
		assertThat(store.pruneFinished(JobStatus.SUCCEEDED, Duration.ofMillis(10), 100)).isEqualTo(1);
		assertThat(store.pruneFinished(JobStatus.FAILED, Duration.ofMillis(10), 100)).isEqualTo(1);
		io.sqlqueue.internal.maintenance.Pruner pruner = new io.sqlqueue.internal.maintenance.Pruner(store, fixture().scheduler(),
				Duration.ofHours(1), Duration.ofDays(7), Duration.ofMillis(10), Duration.ZERO);
		assertThat(pruner.runOnce()).containsEntry(JobStatus.CANCELLED, 1).doesNotContainKey(JobStatus.FAILED);
		assertThat(fixture().count("1 = 1")).isEqualTo(1);
		assertThat(fixture().status(claimed.get(2).id())).isEqualTo(JobStatus.RUNNING);
		assertThatThrownBy(() -> store.pruneFinished(JobStatus.QUEUED, Duration.ZERO, 10))
			.isInstanceOf(IllegalArgumentException.class);
	}


	/**
	 * A pass of the pruner reads each batch from where the last one ended, not from the
	 * oldest again, and the next pass, from the oldest, deletes what came to lie behind.
	 */
	@Test
	default void aPruneFromWhereTheLastBatchEndedReadsOnAndTheNextPassCatchesUp() {
		List<Long> ids = fixture().queue().enqueueAll(List.of(Job.of("work", 1), Job.of("work", 2), Job.of("work", 3),
				Job.of("work", 4), Job.of("work", 5)));
		List<Completion> completions = new ArrayList<>();
		claim("default", 5, "work").forEach((job) -> completions.add(new Completion(new Lease(job.id(), job.leaseToken()), null)));
		fixture().store().complete(completions);
		Instant dayAgo = Instant.now().truncatedTo(ChronoUnit.SECONDS).minus(Duration.ofDays(1));
		for (int i = 0; i < ids.size(); i++) {
			finishedAt(ids.get(i), dayAgo.plusSeconds(i));
		}
		JobStore store = fixture().store();
		PrunedJobs first = store.pruneFinished(JobStatus.SUCCEEDED, Duration.ofHours(1), null, 2);
		assertThat(first.count()).isEqualTo(2);
		assertThat(first.lastFinishedAt()).isEqualTo(dayAgo.plusSeconds(1));
		assertThat(fixture().count("1 = 1")).isEqualTo(3);
		// A job comes to lie behind the position (a completion that committed late).
		finishedAt(ids.get(4), dayAgo.minusSeconds(60));
		PrunedJobs second = store.pruneFinished(JobStatus.SUCCEEDED, Duration.ofHours(1), first.lastFinishedAt(), 5);
		assertThat(second.count()).isEqualTo(2);
		assertThat(second.lastFinishedAt()).isEqualTo(dayAgo.plusSeconds(3));
		assertThat(fixture().status(ids.get(4))).isEqualTo(JobStatus.SUCCEEDED);
		assertThat(store.pruneFinished(JobStatus.SUCCEEDED, Duration.ofHours(1), second.lastFinishedAt(), 5).count())
			.as("nothing left past the position").isEqualTo(0);
		io.sqlqueue.internal.maintenance.Pruner pruner = new io.sqlqueue.internal.maintenance.Pruner(store,
				fixture().scheduler(), Duration.ofHours(1), Duration.ofHours(1), Duration.ZERO, Duration.ZERO);
		assertThat(pruner.runOnce()).containsEntry(JobStatus.SUCCEEDED, 1);
		assertThat(fixture().count("1 = 1")).isZero();
	}

	private void finishedAt(long id, Instant finishedAt) {
		fixture().jdbc().update("UPDATE " + fixture().table() + " SET finished_at = ? WHERE id = ?", (ps) -> {
			fixture().database().dialect().setTimestamp(ps, 1, finishedAt);
			ps.setLong(2, id);
		});
	}

}
