package io.sqlqueue;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariDataSource;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.ResourceLock;

import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.transaction.TransactionDefinition;

import io.sqlqueue.internal.DefaultJobQueue;
import io.sqlqueue.internal.schedule.DefaultSchedules;
import io.sqlqueue.internal.store.ClaimRequest;
import io.sqlqueue.internal.store.Completion;
import io.sqlqueue.internal.store.JobStore;
import io.sqlqueue.internal.store.Lease;
import io.sqlqueue.internal.store.NewJob;
import io.sqlqueue.internal.store.ScheduleStore;
import io.sqlqueue.schedule.FiredTick;
import io.sqlqueue.schedule.Recurrence;
import io.sqlqueue.schedule.ScheduleDefinition;
import io.sqlqueue.schedule.ScheduleRecord;
import io.sqlqueue.schedule.Schedules;
import io.sqlqueue.test.FlowRowWrites;
import io.sqlqueue.test.OpenTransaction;
import io.sqlqueue.test.QueueFixture;
import io.sqlqueue.test.TestDatabase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

@ResourceLock(TestDatabase.MARIADB_SERVER)
class MariaDbConformanceIT extends QueueConformanceTests {

	@Override
	protected TestDatabase database() {
		return TestDatabase.MARIADB;
	}

	/** Names compare byte for byte (utf8mb4_bin), not by MariaDB's default case-insensitive collation. */
	@Test
	void queueAndHandlerNamesAndUniqueKeysAreCaseSensitive() {
		long upper = this.fixture.queue().enqueue(Job.of("Work", 1).queue("Mail").uniqueKey("Key"));
		long lower = this.fixture.queue().enqueue(Job.of("work", 2).queue("mail").uniqueKey("key"));
		assertThat(claim("mail", "Work")).isEmpty();
		assertThat(claim("mail", "work")).extracting(JobRecord::id).containsExactly(lower);
		assertThat(claim("Mail", "Work")).extracting(JobRecord::id).containsExactly(upper);
	}

	/**
	 * A plain server's row lock holds every writer: a limited claim that starts jobs leaves its
	 * queue's flow row unwritten (only a Galera node's writes it, {@link GaleraConformanceIT}).
	 */
	@Test
	void aLimitedClaimLeavesTheFlowRowUnwritten() {
		assertThat(this.database.dialect().rowLocksHoldEveryWriter()).as("fitted to a plain server").isTrue();
		assertThat(FlowRowWrites.ofALimitedClaim(this.fixture, this.database)).isZero();
	}

	/**
	 * The sweeps bound their lock waits with InnoDB's session setting: the connection goes back
	 * to the pool with the bound it had.
	 */
	@Test
	void sweepsGiveTheConnectionBackWithItsOwnLockWaitBound() {
		try (HikariDataSource pool = this.database.newDataSource(1, "SET SESSION innodb_lock_wait_timeout = 7")) {
			JobStore store = this.fixture.newStore(pool);
			this.fixture.queue().enqueue(Job.of("nobody.handles.this", null).deadline(Instant.parse("2000-01-01T00:00:00Z")));
			assertThat(store.expirePassedDeadlines(10)).hasSize(1);
			assertThat(store.reapExpired(10, 3)).isEmpty();
			assertThat(new org.springframework.jdbc.core.JdbcTemplate(pool)
				.queryForObject("SELECT @@SESSION.innodb_lock_wait_timeout", Long.class)).isEqualTo(7L);
		}
	}

	/**
	 * InnoDB's default REPEATABLE READ locks the gap where a statement looks for a row that is
	 * not there; above the highest id, that gap is where every enqueue inserts. A cancel or a
	 * retry of such an id inside a caller's REPEATABLE READ transaction must not hold up the
	 * enqueues of every instance until that transaction ends.
	 */
	@Test
	void cancelAndRetryOfAMissingJobInACallersRepeatableReadTransactionBlockNoEnqueue() throws Exception {
		long highest = this.fixture.queue().enqueue("work", 1);
		try (OpenTransaction<Boolean> caller = OpenTransaction.begin(this.database.dataSource(),
				TransactionDefinition.ISOLATION_REPEATABLE_READ,
				() -> this.fixture.queue().cancel(highest + 1000) || this.fixture.queue().retry(highest + 1000))) {
			assertThat(caller.result()).isFalse();
			long next = CompletableFuture.supplyAsync(() -> this.fixture.queue().enqueue("work", 2))
				.get(5, TimeUnit.SECONDS);
			assertThat(next).isGreaterThan(highest);
		}
	}

	/** DATETIME(6) holds UTC: a session in another time zone reads and writes the same instants. */
	@Test
	void timesAreUtcWhateverTheSessionTimeZone() {
		try (HikariDataSource pool = this.database.newDataSource(2, "SET time_zone = '+05:00'")) {
			JobStore store = this.fixture.newStore(pool);
			Instant due = Instant.now().minusSeconds(60).truncatedTo(ChronoUnit.MICROS);
			long past = store.insert(List.of(new NewJob("default", "work", "{}", 0, due, 0, 3, null, null))).get(0);
			store.insert(List.of(new NewJob("default", "work", "{}", 0, null, 3_600_000, 3, null, null)));
			assertThat(this.fixture.job(past).runAt()).isEqualTo(due);
			assertThat(this.fixture.job(past).createdAt()).isCloseTo(Instant.now(), within(10, ChronoUnit.SECONDS));
			List<JobRecord> claimed = store.claim(new ClaimRequest("tz", "default", List.of("work"), 10, 30_000));
			assertThat(claimed).extracting(JobRecord::id).containsExactly(past);
			assertThat(store.find(past).orElseThrow().leaseExpiresAt()).isCloseTo(Instant.now().plusSeconds(30),
					within(10, ChronoUnit.SECONDS));
		}
	}

	/**
	 * With bulk statements the driver answers "no info" for each row of a batch: fencing
	 * refuses to guess. The heartbeat's fenced updates are such a batch here (a completion
	 * flush is one statement, whose count the driver reports).
	 */
	@Test
	void driverThatHidesUpdateCountsIsRefused() {
		String url = this.database.url() + (this.database.url().contains("?") ? "&" : "?") + "useBulkStmts=true";
		JobStore bulk = this.fixture.newStore(new DriverManagerDataSource(url, "root", ""));
		this.fixture.queue().enqueueAll(List.of(Job.of("work", 1), Job.of("work", 2)));
		List<Lease> leases = claim("default", "work").stream()
			.map((job) -> new Lease(job.id(), job.leaseToken()))
			.toList();
		assertThatThrownBy(() -> bulk.extendLeases(leases, Duration.ofMinutes(1)))
			.hasMessageContaining("SUCCESS_NO_INFO");
		List<Completion> completions = leases.stream().map((lease) -> new Completion(lease, null)).toList();
		assertThat(bulk.complete(completions)).containsExactly(true, true);
	}

	/**
	 * Schedules run on the database's clock alone: with the database ten minutes ahead of
	 * this JVM (MariaDB lets a session set its clock), a new schedule's next tick and its
	 * firing follow the database, as they would with the JVM's clock ten minutes off.
	 */
	@Test
	void schedulesFollowTheDatabaseClockWhateverTheJvmClock() {
		handler("tick", (payload, context) -> null);
		long skewed = Instant.now().plus(Duration.ofMinutes(10)).getEpochSecond();
		try (HikariDataSource pool = this.database.newDataSource(2, "SET timestamp = " + skewed)) {
			ScheduleStore store = new ScheduleStore(pool, this.database.dialect(), this.database.schema());
			Schedules schedules = new DefaultSchedules(store, new DefaultJobQueue(this.fixture.newStore(pool), this.fixture.codec(),
					this.fixture.handlers(), QueueFixture.FAST_RETRIES), this.fixture.handlers(), JobListener.NONE);
			ScheduleRecord created = schedules
				.create(ScheduleDefinition.of("hourly", "tick", Recurrence.every(Duration.ofHours(1))));
			assertThat(created.nextRunAt()).isEqualTo(Instant.ofEpochSecond(skewed).plus(Duration.ofHours(1)));
			// Due by the database's clock, ten minutes ahead by this JVM's: it fires.
			store.setPaused("hourly", store.find("hourly").orElseThrow().version(), false,
					Instant.ofEpochSecond(skewed).minusSeconds(1));
			List<FiredTick> fired = schedules.fireDue();
			assertThat(fired).singleElement().satisfies((tick) -> {
				assertThat(tick.skipped()).isFalse();
				assertThat(tick.lag()).isEqualTo(Duration.ofSeconds(1));
			});
			assertThat(schedules.find("hourly").orElseThrow().nextRunAt())
				.isEqualTo(Instant.ofEpochSecond(skewed).minusSeconds(1).plus(Duration.ofHours(1)));
		}
	}

	/**
	 * A replica's user without the right to ask ({@code REPLICA MONITOR}) reads the jobs, and
	 * its staleness is unknown, saying why, rather than failing the reads.
	 */
	@Test
	void aReplicaUserWithoutTheRightToAskReadsAndItsStalenessIsUnknown() {
		String user = "sq_lag_" + java.util.UUID.randomUUID().toString().replace("-", "").substring(0, 8);
		org.springframework.jdbc.core.JdbcTemplate root = this.fixture.jdbc();
		root.execute("CREATE USER '" + user + "'@'%' IDENTIFIED BY 'secret'");
		try {
			root.execute("GRANT SELECT ON " + this.database.schema() + ".* TO '" + user + "'@'%'");
			this.fixture.queue().enqueue("work", 1);
			io.sqlqueue.internal.store.ReadStore replica = io.sqlqueue.internal.store.ReadStore.replica(
					new DriverManagerDataSource(this.database.url(), user, "secret"), this.database.dialect(),
					this.database.schema());
			io.sqlqueue.admin.Staleness staleness = replica.staleness();
			assertThat(staleness.state()).isEqualTo(io.sqlqueue.admin.Staleness.State.UNKNOWN);
			assertThat(staleness.detail()).contains("SHOW REPLICA STATUS was refused", "REPLICA MONITOR");
			assertThat(replica.countsByQueue()).singleElement()
				.satisfies((count) -> assertThat(count.jobs()).isOne());
		}
		finally {
			root.execute("DROP USER '" + user + "'@'%'");
		}
	}

	private List<JobRecord> claim(String queue, String handler) {
		return this.fixture.store().claim(new ClaimRequest("test-worker", queue, List.of(handler), 10, 30_000));
	}

}
