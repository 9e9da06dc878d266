package io.sqlqueue;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.datasource.DriverManagerDataSource;

import io.sqlqueue.admin.JobFilter;
import io.sqlqueue.admin.JobSummary;
import io.sqlqueue.admin.QueueAdmin;
import io.sqlqueue.admin.ReplicaReadException;
import io.sqlqueue.admin.Staleness;
import io.sqlqueue.internal.admin.DefaultQueueAdmin;
import io.sqlqueue.internal.store.QueueCount;
import io.sqlqueue.internal.store.ReadStore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The reads that tolerate staleness ({@link ReadStore}) on a read-only DataSource of every
 * database: a pool whose connections are read-only, on the same database, as the one
 * replica every database can have in a test (PostgreSQL's streaming standby is
 * {@code ReadReplicaPostgresIT}'s, in the dashboard). The reads see what the queue committed
 * and write nothing; the replica says what it is; a replica that cannot be reached fails its
 * reads with a {@link ReplicaReadException} and nothing else. {@link QueueConformanceTests}
 * implements this.
 */
interface ReadReplicaConformance extends ConformanceSupport {

	private void onceForTheDatabase() {
		assumeTrue(fixture().claimMethod() == isolatedDatabase().dialect().claimMethod(),
				"The reads do not depend on the claim method; run with the database's own");
	}

	private ReadStore replicaOf(javax.sql.DataSource dataSource) {
		return ReadStore.replica(dataSource, isolatedDatabase().dialect(), isolatedDatabase().schema());
	}

	@Test
	default void aReadOnlyReplicaReadsWhatTheQueueCommittedAndSaysWhatItIs() {
		onceForTheDatabase();
		handler("work", (payload, context) -> null);
		List<Long> ids = fixture().queue()
			.enqueueAll(List.of(Job.of("work", 1).tags("read"), Job.of("work", 2).queue("mail"), Job.of("work", 3)));
		fixture().queue().cancel(ids.get(2));
		try (HikariDataSource readOnly = isolatedDatabase().newReadOnlyDataSource(2)) {
			ReadStore replica = replicaOf(readOnly);
			ReadStore own = ReadStore.of(fixture().store());
			assertThat(replica.isReplica()).isTrue();
			assertThat(own.isReplica()).isFalse();
			assertThat(byQueueAndStatus(replica.countsByQueue())).isEqualTo(byQueueAndStatus(own.countsByQueue()))
				.containsEntry("default QUEUED", 1L)
				.containsEntry("default CANCELLED", 1L)
				.containsEntry("mail QUEUED", 1L);
			assertThat(replica.queuedByQueue()).isEqualTo(own.queuedByQueue());
			assertThat(replica.finishedPerMinute(15)).isEqualTo(own.finishedPerMinute(15));
			QueueAdmin admin = new DefaultQueueAdmin(fixture().queue(), fixture().store(), replica, null, null, null,
					null);
			assertThat(admin.search(JobFilter.builder().build(), null, 10).jobs()).extracting(JobSummary::id)
				.containsExactly(ids.get(2), ids.get(1), ids.get(0));
			assertThat(admin.searchNewer(JobFilter.builder().build(), ids.get(0), 10).jobs()).hasSize(2);
			assertThat(admin.count(JobFilter.builder().tag("read").build())).isOne();
			Staleness staleness = admin.readStaleness();
			assertThat(staleness.replica()).isTrue();
			assertThat(staleness.checkedAt()).isBeforeOrEqualTo(Instant.now());
			String database = isolatedDatabase().dialect().name();
			if (database.equals("postgresql") || database.equals("mariadb")) {
				// The test's server is a primary: a pool on it is no replica, and it says so.
				assertThat(staleness.state()).isEqualTo(Staleness.State.NOT_A_REPLICA);
				assertThat(staleness.behind()).isNull();
				assertThat(staleness.detail()).contains(database.equals("postgresql") ? "pg_is_in_recovery()"
						: "SHOW REPLICA STATUS");
			}
			else {
				assertThat(staleness.state()).isEqualTo(Staleness.State.UNKNOWN);
				assertThat(staleness.detail()).contains(database);
			}
			assertThat(new DefaultQueueAdmin(fixture().queue(), fixture().store(), null, null, null).readStaleness())
				.satisfies((primary) -> {
					assertThat(primary.replica()).isFalse();
					assertThat(primary.state()).isEqualTo(Staleness.State.PRIMARY);
				});
		}
	}

	/**
	 * A replica that refuses connections fails every read that goes there with a
	 * {@link ReplicaReadException} naming it, says it is unreachable, and changes nothing
	 * else: the queue enqueues, finds, cancels and bulk-acts on its own database.
	 */
	@Test
	default void aReplicaThatCannotBeReachedFailsItsReadsClearlyAndNothingElse() {
		onceForTheDatabase();
		ReadStore down;
		HikariDataSource closed = null;
		if (isolatedDatabase().url().startsWith("jdbc:postgresql:") || isolatedDatabase().url().startsWith("jdbc:mariadb:")) {
			// A server that is not there: a port nothing listens on.
			down = replicaOf(new DriverManagerDataSource(isolatedDatabase().url().replaceFirst(":\\d+/", ":1/"),
					isolatedDatabase().user(), isolatedDatabase().password()));
		}
		else {
			closed = isolatedDatabase().newReadOnlyDataSource(1);
			closed.close();
			down = replicaOf(closed);
		}
		handler("work", (payload, context) -> null);
		QueueAdmin admin = new DefaultQueueAdmin(fixture().queue(), fixture().store(), down, null, null, null, null);
		long id = fixture().queue().enqueue("work", 1);
		assertThatExceptionOfType(ReplicaReadException.class)
			.isThrownBy(() -> admin.search(JobFilter.builder().build(), null, 10))
			.withMessageContaining("Could not search jobs from the read replica (the @SqlQueueReadDataSource DataSource)");
		assertThatExceptionOfType(ReplicaReadException.class).isThrownBy(() -> admin.count(JobFilter.builder().build()))
			.withMessageContaining("Could not count jobs from the read replica");
		assertThatExceptionOfType(ReplicaReadException.class).isThrownBy(down::countsByQueue);
		assertThatExceptionOfType(ReplicaReadException.class).isThrownBy(down::queuedByQueue);
		assertThatExceptionOfType(ReplicaReadException.class).isThrownBy(() -> down.finishedPerMinute(15));
		Staleness staleness = admin.readStaleness();
		assertThat(staleness.state()).isEqualTo(Staleness.State.UNREACHABLE);
		assertThat(staleness.detail()).isNotBlank();
		assertThat(fixture().queue().find(id)).isPresent();
		assertThat(admin.cancel(id).done()).isTrue();
		long other = fixture().queue().enqueue("work", 2);
		assertThat(admin.bulk(io.sqlqueue.admin.BulkAction.CANCEL, JobFilter.builder().queue("default").build())
			.changed()).isOne();
		assertThat(fixture().status(other)).isEqualTo(JobStatus.CANCELLED);
	}

	private static Map<String, Long> byQueueAndStatus(List<QueueCount> counts) {
		return counts.stream()
			.collect(Collectors.toMap((count) -> count.queue() + " " + count.status(), QueueCount::jobs, Long::sum,
					TreeMap::new));
	}

}
