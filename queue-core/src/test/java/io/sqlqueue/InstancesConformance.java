package io.sqlqueue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import io.sqlqueue.admin.QueueAdmin;
import io.sqlqueue.admin.QueueInstance;
import io.sqlqueue.internal.admin.DefaultQueueAdmin;
import io.sqlqueue.internal.manager.Manager;
import io.sqlqueue.internal.store.ClusterStore;
import io.sqlqueue.internal.store.InstanceReport;
import io.sqlqueue.test.QueueFixture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The instances' rows on every database: written when a Manager starts and at its beats,
 * deleted when it stops, shown as gone when not beaten, deleted after the retention; and an
 * instance whose schema has no such table runs its jobs all the same.
 * {@link QueueConformanceTests} implements this.
 */
interface InstancesConformance extends ConformanceSupport {

	private QueueAdmin admin() {
		return new DefaultQueueAdmin(fixture().queue(), fixture().store(), null, null, null);
	}

	@Test
	default void aRunningManagerHasARowThatItDeletesWhenItStops() throws Exception {
		CountDownLatch started = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		handler("instance.slow", (payload, context) -> {
			started.countDown();
			release.await(30, TimeUnit.SECONDS);
			return "done";
		});
		Manager manager = fixture().startManager(fixture().store(),
				QueueFixture.fastSettings().workerId("host-1-abc").defaultConcurrency(3).build(), 8);
		// The first beat runs at start.
		await().atMost(WAIT).until(() -> !admin().instances().isEmpty());
		long id = fixture().queue().enqueue("instance.slow", 1);
		assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();
		assertThat(manager.beatInstance()).isTrue();
		QueueInstance instance = admin().instances().get(0);
		assertThat(instance.id()).isEqualTo("host-1-abc");
		assertThat(instance.queues()).containsExactly("default");
		assertThat(instance.concurrency()).isEqualTo(3);
		// The running handler's worker, and for a moment maybe one that looks for more work.
		assertThat(instance.busyWorkers()).isBetween(1, 3);
		assertThat(instance.pid()).isEqualTo(ProcessHandle.current().pid());
		assertThat(instance.host()).isNotBlank();
		assertThat(instance.version()).isNotBlank();
		assertThat(instance.gone()).isFalse();
		assertThat(instance.lastSeen()).isAfterOrEqualTo(instance.startedAt());
		// The running job names its instance: its lease owner is the instance's id.
		assertThat(fixture().job(id).leaseOwner()).isEqualTo(instance.id());
		release.countDown();
		awaitStatus(id, JobStatus.SUCCEEDED);
		manager.stop();
		assertThat(admin().instances()).isEmpty();
	}

	@Test
	default void anInstanceThatStopsBeatingIsGoneThenDeletedAfterTheRetention() {
		ClusterStore cluster = fixture().store().cluster();
		cluster.beat(new InstanceReport("crashed", "h", 1, "0.1", List.of("default"), 4, 2, 20));
		await().atMost(WAIT).until(() -> admin().instances().get(0).gone());
		QueueInstance gone = admin().instances().get(0);
		assertThat(gone.id()).isEqualTo("crashed");
		assertThat(gone.sinceSeen()).isGreaterThan(Duration.ofMillis(60));
		handler("instance.any", (payload, context) -> "done");
		Manager manager = fixture().startManager(fixture().store(),
				QueueFixture.fastSettings().workerId("alive").instanceRetention(Duration.ofMillis(300)).build(), 4);
		// Past the retention by the database's clock, the live instance's next beat deletes the row.
		String pastRetention = "SELECT COUNT(*) FROM " + table("queue_instance") + " WHERE id = 'crashed' AND last_seen < "
				+ isolatedDatabase().dialect().nowPlusMillis();
		await().atMost(WAIT).pollInterval(Duration.ofMillis(10))
			.until(() -> fixture().jdbc().queryForObject(pastRetention, Integer.class, -300L) == 1);
		assertThat(manager.beatInstance()).isTrue();
		assertThat(admin().instances()).extracting(QueueInstance::id).containsExactly("alive");
		assertThat(admin().instances().get(0).gone()).isFalse();
	}

	@Test
	default void aBeatAfterTheRowWasDeletedWritesItAgain() {
		handler("instance.back", (payload, context) -> "done");
		Manager manager = fixture().startManager(fixture().store(),
				QueueFixture.fastSettings().workerId("stalled").build(), 4);
		await().atMost(WAIT).until(() -> !admin().instances().isEmpty());
		// Another instance deleted it while this one stalled past the retention.
		assertThat(fixture().store().cluster().deleteInstance("stalled")).isTrue();
		assertThat(manager.beatInstance()).isTrue();
		assertThat(admin().instances()).extracting(QueueInstance::id).containsExactly("stalled");
	}

	@Test
	default void anInstanceWhoseSchemaHasNoSuchTablesStillRunsItsJobs() {
		fixture().jdbc().execute("DROP TABLE " + table("queue_instance"));
		fixture().jdbc().execute("DROP TABLE " + table("queue_paused"));
		handler("instance.old", (payload, context) -> "done");
		Manager manager = fixture().startManager((s) -> s);
		long id = fixture().queue().enqueue("instance.old", 1);
		awaitStatus(id, JobStatus.SUCCEEDED);
		assertThat(manager.beatInstance()).isFalse();
		assertThat(manager.pausedQueues()).isEmpty();
		manager.stop();
	}

}
