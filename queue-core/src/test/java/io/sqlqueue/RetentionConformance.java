package io.sqlqueue;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.sqlqueue.internal.store.Completion;
import io.sqlqueue.internal.store.JobStore;
import io.sqlqueue.internal.store.Lease;

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

}
