package io.sqlqueue.boot.deploy;

import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.IntStream;
import java.util.stream.LongStream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.jdbc.core.JdbcTemplate;

import io.sqlqueue.Job;
import io.sqlqueue.JobQueue;
import io.sqlqueue.boot.deploy.Fleet.Instance;
import io.sqlqueue.test.TestDatabase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A rolling deploy, and its rollback, on a real server: instances of two versions of one
 * application ({@link VersionOne}, {@link VersionTwo}: different handlers, schedules, limits
 * and durable handler code) start beside each other and stop while their jobs run, in both
 * orders. Whatever the order, no job is lost, no job's body runs to its end twice, no stop
 * counts as a crash, every schedule fires once per tick while any instance declares it, the
 * schedule only the newer version declares keeps firing beside the older one, and every
 * limit holds, the newer version's too.
 */
@ExtendWith(OutputCaptureExtension.class)
abstract class RollingDeployScenario {

	private static final Duration PATIENCE = Duration.ofSeconds(90);

	private static final List<String> ORDERS = List.of("o1", "o2", "o3", "o4", "o5");

	private final Ledger ledger = new Ledger();

	private TestDatabase.Isolated database;

	private Fleet fleet;

	private JdbcTemplate jdbc;

	private final Map<String, Long> orderIds = new ConcurrentHashMap<>();

	private long works;

	protected abstract TestDatabase testDatabase();

	@BeforeEach
	void newDatabase() {
		this.database = testDatabase().isolated();
		this.fleet = new Fleet(this.database, this.ledger);
		this.jdbc = new JdbcTemplate(this.database.dataSource());
	}

	@AfterEach
	void stopEveryInstance() {
		this.fleet.close();
		this.database.close();
	}

	/** The deploy: two instances of the first version, replaced one by one by the second. */
	@Test
	void theOlderVersionRunsFirstAndTheNewerReplacesIt(CapturedOutput output) {
		Instance old1 = start(VersionOne.class);
		Instance old2 = start(VersionOne.class);
		enqueueOrders(old1.queue());
		enqueueWork(old1.queue(), 100);
		enqueue(old2.queue(), "limited", 1, 40);
		awaitOrdersCharged();

		Instance new1 = start(VersionTwo.class);
		long newerTicks = ticks("v2-tick");
		enqueue(new1.queue(), "report", 1, 30);
		enqueueWork(new1.queue(), 100);
		stopWhileItsJobsRun(old1);

		Instance new2 = start(VersionTwo.class);
		enqueue(new2.queue(), "limited", 41, 80);
		enqueue(new2.queue(), "report", 31, 60);
		enqueueWork(new2.queue(), 100);
		awaitTicks("v1-tick", 3);
		stopWhileItsJobsRun(old2);

		signalOrders(new1.queue());
		awaitEveryJobDone();
		awaitTicks("v2-tick", newerTicks + 3);
		// Nothing live declares v1-tick any more: it is orphaned, and only it.
		await().atMost(PATIENCE).until(() -> orphaned().contains("v1-tick"));

		enqueueWork(new2.queue(), 100);
		stopWhileItsJobsRun(new1);
		awaitEveryJobDone();
		this.fleet.stop(new2);

		assertNothingLostOrRunTwice();
		assertThat(orphaned()).containsExactly("v1-tick");
		assertEveryTickFiredOnce("shared-tick", "v1-tick", "v2-tick");
		assertLimitsHeld();
		// The orders the first version charged and parked went on down its branch under the second.
		assertThat(this.ledger.shipped()).hasSize(ORDERS.size()).allSatisfy((order, how) -> assertThat(how).isEqualTo("v2"));
		assertQuietDeploy(output);
	}

	/**
	 * The rollback: the newer version runs, an instance of the older one starts beside it (a
	 * rollback, a crash-restart of an old pod), the newer instances stop one by one.
	 */
	@Test
	void theNewerVersionRunsFirstAndTheOlderStartsBesideIt(CapturedOutput output) {
		Instance new1 = start(VersionTwo.class);
		Instance new2 = start(VersionTwo.class);
		enqueueOrders(new1.queue());
		enqueueWork(new1.queue(), 100);
		enqueue(new2.queue(), "report", 1, 30);
		enqueue(new2.queue(), "limited", 1, 40);
		awaitOrdersCharged();

		Instance old1 = start(VersionOne.class);
		long ticksBesideOlder = ticks("v2-tick");
		enqueue(new2.queue(), "report", 31, 60);
		enqueueWork(old1.queue(), 100);
		stopWhileItsJobsRun(new1);

		Instance old2 = start(VersionOne.class);
		enqueue(old2.queue(), "limited", 41, 80);
		enqueueWork(old2.queue(), 100);
		signalOrders(old2.queue());
		awaitEveryJobDone();
		// The older version does not know v2-tick: beside it, the schedule keeps firing.
		awaitTicks("v2-tick", ticksBesideOlder + 3);
		awaitTicks("v1-tick", 3);

		enqueueWork(old2.queue(), 100);
		stopWhileItsJobsRun(old1);
		awaitEveryJobDone();
		assertThat(orphaned()).as("schedules orphaned while instances that declare them live").isEmpty();
		this.fleet.stop(old2);
		this.fleet.stop(new2);

		assertNothingLostOrRunTwice();
		assertEveryTickFiredOnce("shared-tick", "v1-tick", "v2-tick");
		assertLimitsHeld();
		// Orders that started under the second version recorded its patch marker; the first
		// version skips the marker on replay, the second takes the new branch.
		assertThat(this.ledger.shipped()).hasSize(ORDERS.size())
			.allSatisfy((order, how) -> assertThat(how).isIn("v1", "v2 with receipt"));
		assertQuietDeploy(output);
	}

	private Instance start(Class<?> version) {
		return this.fleet.start(version, (version == VersionOne.class) ? VersionOne.PROPERTIES : VersionTwo.PROPERTIES);
	}

	/**
	 * Stops the instance once it runs a job that outlasts the shutdown timeout: a stop under
	 * load. Work goes on being enqueued until it does (one job in 20 is long).
	 */
	private void stopWhileItsJobsRun(Instance instance) {
		await().atMost(PATIENCE).pollInterval(Duration.ofMillis(300)).until(() -> {
			if (this.ledger.longJobsRunningOn(instance.name()) > 0) {
				return true;
			}
			enqueueWork(instance.queue(), 20);
			return false;
		});
		this.fleet.stop(instance);
	}

	private void enqueueWork(JobQueue queue, int count) {
		long first = this.works + 1;
		this.works += count;
		enqueue(queue, "work", first, this.works);
	}

	private static void enqueue(JobQueue queue, String handler, long first, long last) {
		queue.enqueueAll(LongStream.rangeClosed(first, last).mapToObj((n) -> Job.of(handler, n)).toList());
	}

	private void awaitOrdersCharged() {
		await().atMost(PATIENCE)
			.until(() -> ORDERS.stream().allMatch((order) -> this.ledger.timesFinished("charge " + order) > 0)
					&& count("handler = 'order' AND status = 'QUEUED'") == ORDERS.size());
	}

	private void awaitEveryJobDone() {
		await().atMost(PATIENCE)
			.until(() -> count("handler IN ('work', 'limited', 'report', 'order') AND status <> 'SUCCEEDED'") == 0);
	}

	private void awaitTicks(String schedule, long ticks) {
		await().atMost(PATIENCE).until(() -> ticks(schedule) >= ticks);
	}

	private long ticks(String schedule) {
		return count("handler = '" + schedule + "' AND scheduled_for IS NOT NULL");
	}

	private void assertNothingLostOrRunTwice() {
		assertThat(this.ledger.finishedMoreThanOnce()).as("job bodies that ran to their end twice").isEmpty();
		List<String> lost = new ArrayList<>();
		LongStream.rangeClosed(1, this.works)
			.filter((n) -> this.ledger.timesFinished("work " + n) != 1)
			.forEach((n) -> lost.add("work " + n));
		IntStream.rangeClosed(1, 80)
			.filter((n) -> this.ledger.timesFinished("limited " + n) != 1)
			.forEach((n) -> lost.add("limited " + n));
		IntStream.rangeClosed(1, 60)
			.filter((n) -> this.ledger.timesFinished("report " + n) != 1)
			.forEach((n) -> lost.add("report " + n));
		ORDERS.stream().filter((order) -> this.ledger.timesFinished("charge " + order) != 1).forEach(lost::add);
		assertThat(lost).as("jobs whose body did not run to its end exactly once").isEmpty();
		assertThat(count("handler IN ('work', 'limited', 'report', 'order') AND status = 'SUCCEEDED'"))
			.isEqualTo(this.works + 80 + 60 + ORDERS.size());
		assertThat(this.jdbc.queryForObject("SELECT COALESCE(SUM(crashes), 0) FROM " + table("queue_job"), Long.class))
			.as("crashes counted").isZero();
		// The stops came while long jobs ran: they were interrupted and given back, not crashed.
		assertThat(this.ledger.timesInterrupted()).as("bodies interrupted by a stop").isPositive();
	}

	/**
	 * A deploy is the queue's everyday business: no stop, start or version beside another logs
	 * a stack trace, or a lease lost that a stop ended.
	 */
	private static void assertQuietDeploy(CapturedOutput output) {
		assertThat(output.getAll().lines().filter((line) -> line.startsWith("\tat ") || line.contains(" was lost ("))
			.findFirst()).isEmpty();
	}

	private void assertEveryTickFiredOnce(String... schedules) {
		for (String schedule : schedules) {
			List<Instant> ticks = this.jdbc.queryForList("SELECT scheduled_for FROM " + table("queue_job")
					+ " WHERE handler = ? ORDER BY scheduled_for", Timestamp.class, schedule)
				.stream()
				.map(Timestamp::toInstant)
				.toList();
			assertThat(ticks).as(schedule + "'s ticks").hasSizeGreaterThanOrEqualTo(3).doesNotHaveDuplicates();
			for (int i = 1; i < ticks.size(); i++) {
				assertThat(Duration.between(ticks.get(i - 1), ticks.get(i))).as(schedule + " after " + ticks.get(i - 1))
					.isEqualTo(Duration.ofSeconds(1));
			}
		}
	}

	private void assertLimitsHeld() {
		assertThat(this.ledger.mostAtOnce("limited")).as("most limited jobs at once").isBetween(1, 2);
		assertThat(this.ledger.mostAtOnce("reports")).as("most reports at once").isEqualTo(1);
	}

	private List<String> orphaned() {
		return this.jdbc.queryForList("SELECT name FROM " + table("queue_schedule") + " WHERE orphaned ORDER BY name",
				String.class);
	}

	private void enqueueOrders(JobQueue queue) {
		ORDERS.forEach((order) -> this.orderIds.put(order, queue.enqueue("order", order)));
	}

	private void signalOrders(JobQueue queue) {
		this.orderIds.values().forEach((id) -> queue.signal(id, "go", "now"));
	}

	private long count(String where) {
		return this.jdbc.queryForObject("SELECT count(*) FROM " + table("queue_job") + " WHERE " + where, Long.class);
	}

	private String table(String name) {
		return this.database.schema() + "." + name;
	}

}
