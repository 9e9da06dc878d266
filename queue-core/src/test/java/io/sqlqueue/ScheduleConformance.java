package io.sqlqueue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Test;

import io.sqlqueue.handler.HandlerDefinition;
import io.sqlqueue.internal.DefaultJobQueue;
import io.sqlqueue.internal.handler.HandlerRegistry;
import io.sqlqueue.internal.schedule.DefaultSchedules;
import io.sqlqueue.internal.store.ClaimMethod;
import io.sqlqueue.internal.store.ScheduleRow;
import io.sqlqueue.internal.store.ScheduleStore;
import io.sqlqueue.schedule.ConcurrentScheduleChangeException;
import io.sqlqueue.schedule.FiredTick;
import io.sqlqueue.schedule.MisfirePolicy;
import io.sqlqueue.schedule.OverlapPolicy;
import io.sqlqueue.schedule.Recurrence;
import io.sqlqueue.schedule.ScheduleDefinition;
import io.sqlqueue.schedule.ScheduleRecord;
import io.sqlqueue.schedule.ScheduleSource;
import io.sqlqueue.schedule.Schedules;
import io.sqlqueue.test.OpenTransaction;
import io.sqlqueue.test.QueueFixture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Recurring jobs on every database: each tick fires once across instances, missed ticks
 * follow the misfire policy, schedules are operated at runtime, and where instances and
 * callers meet nothing fires twice or waits. {@link QueueConformanceTests} implements this.
 * Each "instance" is a {@link Schedules} with its own pool of connections and, where it
 * matters, its own handlers.
 */
interface ScheduleConformance extends ConformanceSupport {

	Duration SCHEDULE_WAIT = Duration.ofSeconds(30);

	/** Schedules do not depend on the claim method: the compare-and-set variants would only run these again. */
	private void assumeOwnClaimMethod() {
		assumeTrue(fixture().claimMethod() == isolatedDatabase().dialect().claimMethod(),
				"Schedules do not depend on the claim method; run with the database's own");
	}

	private ScheduleStore scheduleStore(DataSource dataSource) {
		return new ScheduleStore(dataSource, isolatedDatabase().dialect(), isolatedDatabase().schema());
	}

	private DefaultSchedules instance(ScheduleStore store, DataSource dataSource, HandlerRegistry handlers) {
		return new DefaultSchedules(store, new DefaultJobQueue(fixture().newStore(dataSource), fixture().codec(), handlers,
				QueueFixture.FAST_RETRIES), handlers, JobListener.NONE);
	}

	/** A store that runs {@code hook} after each read of one schedule, before the caller sees the row. */
	private ScheduleStore afterEachRead(DataSource dataSource, BiConsumer<ScheduleStore, ScheduleRow> hook) {
		return new ScheduleStore(dataSource, isolatedDatabase().dialect(), isolatedDatabase().schema()) {
			@Override
			public Optional<ScheduleRow> find(String name) {
				Optional<ScheduleRow> row = super.find(name);
				row.ifPresent((read) -> hook.accept(this, read));
				return row;
			}
		};
	}

	private void moveNextRunBack(String schedule, Duration by) {
		ScheduleStore store = scheduleStore(isolatedDatabase().dataSource());
		ScheduleRow row = store.find(schedule).orElseThrow();
		assertThat(store.setPaused(schedule, row.version(), row.paused(), row.databaseNow().minus(by))).isTrue();
	}

	private List<JobRecord> jobsOf(String handler) {
		return fixture().jdbc()
			.queryForList("SELECT id FROM " + fixture().table() + " WHERE handler = ? ORDER BY id", Long.class, handler)
			.stream()
			.map(fixture()::job)
			.toList();
	}

	/**
	 * An instance's schedules on {@code dataSource}, with this fixture's handlers. Schedules
	 * take their ticks by compare-and-set on every database, whatever the claim method: the
	 * compare-and-set variants of the suite would only run these again.
	 */
	private DefaultSchedules schedules(DataSource dataSource) {
		assumeOwnClaimMethod();
		return instance(scheduleStore(dataSource), dataSource, fixture().handlers());
	}

	// --- firing, misfires, overlap and operations

	/**
	 * Three instances firing one schedule every second for 12 ticks, the first nine missed and
	 * due at once: one job per tick, none missed (each firing is a race of three firers; 30
	 * live ticks took 30 s on each database).
	 */
	@Test
	default void threeInstancesFireEachTickOfAScheduleOnce() throws Exception {
		handler("tick", (payload, context) -> null);
		List<HikariDataSource> pools = new ArrayList<>();
		try {
			List<Schedules> instances = new ArrayList<>();
			for (int i = 0; i < 3; i++) {
				HikariDataSource pool = isolatedDatabase().newDataSource(4);
				pools.add(pool);
				instances.add(schedules(pool));
			}
			instances.get(0).create(ScheduleDefinition.of("every-second", "tick", Recurrence.every(Duration.ofSeconds(1)))
				.withMisfire(MisfirePolicy.EACH)
				.withOverlap(OverlapPolicy.ALLOW));
			// Nine ticks missed (each one due, all at once) and then live ones: the three instances race
			// for both, in four seconds rather than twelve.
			moveNextRunBack("every-second", Duration.ofMillis(8_500));
			AtomicBoolean stop = new AtomicBoolean();
			List<CompletableFuture<Void>> firers = instances.stream()
				.map((instance) -> CompletableFuture.runAsync(() -> {
					while (!stop.get()) {
						instance.fireDue();
						sleepQuietly(20);
					}
				}))
				.toList();
			await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
				.until(() -> jobsOf("tick").size() >= 12);
			stop.set(true);
			CompletableFuture.allOf(firers.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
		}
		finally {
			pools.forEach(HikariDataSource::close);
		}
		List<Instant> ticks = jobsOf("tick").stream().map(JobRecord::scheduledFor).toList();
		assertThat(ticks).doesNotContainNull().doesNotHaveDuplicates().hasSizeGreaterThanOrEqualTo(12);
		for (int i = 1; i < ticks.size(); i++) {
			assertThat(Duration.between(ticks.get(i - 1), ticks.get(i))).isEqualTo(Duration.ofSeconds(1));
		}
	}

	/** Down across ten ticks: one job for the latest (default), none, or one per tick. */
	@Test
	default void missedTicksFollowTheMisfirePolicy() {
		handler("once", (payload, context) -> null);
		handler("skip", (payload, context) -> null);
		handler("each", (payload, context) -> null);
		Schedules schedules = schedules(isolatedDatabase().dataSource());
		Recurrence everySecond = Recurrence.every(Duration.ofSeconds(1));
		schedules.create(ScheduleDefinition.of("once", "once", everySecond));
		schedules.create(ScheduleDefinition.of("skip", "skip", everySecond).withMisfire(MisfirePolicy.SKIP));
		schedules.create(ScheduleDefinition.of("each", "each", everySecond).withMisfire(MisfirePolicy.EACH));
		for (String name : List.of("once", "skip", "each")) {
			moveNextRunBack(name, Duration.ofMillis(9_500));
		}
		List<FiredTick> handled = schedules.fireDue();
		assertThat(jobsOf("once")).hasSize(1);
		assertThat(jobsOf("skip")).isEmpty();
		assertThat(jobsOf("each")).hasSize(10);
		ScheduleRecord once = schedules.find("once").orElseThrow();
		assertThat(jobsOf("once").get(0).scheduledFor()).isEqualTo(once.lastTickAt());
		assertThat(handled.stream().filter((tick) -> tick.schedule().equals("skip"))).allMatch(FiredTick::skipped);
		for (String name : List.of("once", "skip", "each")) {
			ScheduleRecord record = schedules.find(name).orElseThrow();
			assertThat(record.nextRunAt()).isAfter(record.lastTickAt());
			// No tick already handled fires again; a later one may be due by now on a slow machine.
			assertThat(schedules.fireDue())
				.noneMatch((tick) -> tick.schedule().equals(name) && !tick.tick().isAfter(record.lastTickAt()));
		}
	}

	@Test
	default void aTickWhileThePreviousJobIsUnfinishedIsSkippedUnlessOverlapIsAllowed() {
		handler("slow", (payload, context) -> null);
		handler("overlapping", (payload, context) -> null);
		Schedules schedules = schedules(isolatedDatabase().dataSource());
		Recurrence hourly = Recurrence.every(Duration.ofHours(1));
		schedules.create(ScheduleDefinition.of("slow", "slow", hourly));
		schedules.create(ScheduleDefinition.of("overlapping", "overlapping", hourly).withOverlap(OverlapPolicy.ALLOW));
		for (int round = 0; round < 2; round++) {
			moveNextRunBack("slow", Duration.ofSeconds(1));
			moveNextRunBack("overlapping", Duration.ofSeconds(1));
			schedules.fireDue();
		}
		// No Manager runs: the first tick's job is still QUEUED at the second tick.
		assertThat(jobsOf("slow")).hasSize(1);
		assertThat(jobsOf("overlapping")).hasSize(2);
		assertThat(schedules.find("slow").orElseThrow().lastJobStatus()).isEqualTo(JobStatus.QUEUED);
	}

	@Test
	default void schedulesAreOperatedAtRuntimeAndTheHandlerSeesItsTick() {
		List<Instant> seen = Collections.synchronizedList(new ArrayList<>());
		fixture().register(HandlerDefinition.of("report", "default", (payload, context) -> {
			seen.add(context.scheduledFor());
			return payload;
		}));
		fixture().startManager((s) -> s);
		Schedules schedules = schedules(isolatedDatabase().dataSource());
		ScheduleRecord created = schedules.create(ScheduleDefinition.of("nightly", "report",
				Recurrence.cron("0 0 2 * * *", "Europe/Berlin")).withPayload("{\"kind\":\"sales\"}"));
		assertThat(created.source()).isEqualTo(ScheduleSource.API);
		assertThat(created.nextRunAt().atZone(java.time.ZoneId.of("Europe/Berlin")).getHour()).isEqualTo(2);
		assertThatThrownBy(() -> schedules.create(created.definition())).isInstanceOf(IllegalStateException.class);
		long id = schedules.trigger("nightly");
		awaitStatus(id, JobStatus.SUCCEEDED);
		assertThat(JSON.readValue(fixture().job(id).payload(), Map.class)).isEqualTo(Map.of("kind", "sales"));
		assertThat(seen).hasSize(1).doesNotContainNull();
		assertThat(schedules.find("nightly").orElseThrow().lastJobId()).isEqualTo(id);
		assertThat(schedules.pause("nightly")).isTrue();
		moveNextRunBack("nightly", Duration.ofSeconds(1));
		assertThat(schedules.fireDue()).isEmpty();
		assertThat(schedules.resume("nightly")).isTrue();
		assertThat(schedules.find("nightly").orElseThrow().nextRunAt())
			.isAfter(schedules.find("nightly").orElseThrow().lastFiredAt());
		ScheduleRecord updated = schedules.update(created.definition().withRecurrence(Recurrence.every(Duration.ofMinutes(15))));
		assertThat(updated.definition().recurrence().every()).isEqualTo(Duration.ofMinutes(15));
		moveNextRunBack("nightly", Duration.ofSeconds(1));
		List<FiredTick> fired = schedules.fireDue();
		assertThat(fired).hasSize(1);
		awaitStatus(fired.get(0).jobId(), JobStatus.SUCCEEDED);
		assertThat(fixture().job(fired.get(0).jobId()).scheduledFor()).isEqualTo(fired.get(0).tick());
		assertThat(schedules.delete("nightly")).isTrue();
		assertThat(schedules.find("nightly")).isEmpty();
	}

	@Test
	default void schedulesThatLeaveTheCodeStopFiringAndShowAsOrphaned() {
		handler("kept", (payload, context) -> null);
		handler("dropped", (payload, context) -> null);
		Schedules schedules = schedules(isolatedDatabase().dataSource()).withDeclarationRefresh(Duration.ofMillis(50));
		Recurrence hourly = Recurrence.every(Duration.ofHours(1));
		schedules.declare(ScheduleSource.PROPERTIES,
				List.of(ScheduleDefinition.of("kept", "kept", hourly), ScheduleDefinition.of("dropped", "dropped", hourly)));
		schedules.create(ScheduleDefinition.of("runtime", "kept", hourly));
		schedules.declare(ScheduleSource.PROPERTIES, List.of(ScheduleDefinition.of("kept", "kept", hourly)));
		// Orphaned once its last declaration (the first one's) has lapsed: three refreshes.
		await().atMost(SCHEDULE_WAIT).pollInterval(Duration.ofMillis(20)).until(() -> {
			schedules.fireDue();
			return schedules.find("dropped").orElseThrow().orphaned();
		});
		assertThat(schedules.find("kept").orElseThrow().orphaned()).isFalse();
		assertThat(schedules.find("runtime").orElseThrow().orphaned()).isFalse();
		moveNextRunBack("dropped", Duration.ofSeconds(1));
		assertThat(schedules.fireDue()).isEmpty();
		assertThatThrownBy(() -> schedules.declare(ScheduleSource.ANNOTATION,
				List.of(ScheduleDefinition.of("ghost", "no.such.handler", hourly))))
			.isInstanceOf(IllegalStateException.class)
			.hasMessageContaining("ghost")
			.hasMessageContaining("no.such.handler");
	}

	// --- versions: instances that declare different schedules side by side

	/** An instance with only the named handlers of the fixture, keeping its declarations every {@code refresh}. */
	private DefaultSchedules version(DataSource dataSource, Duration refresh, String... handlers) {
		assumeOwnClaimMethod();
		HandlerRegistry registry = new HandlerRegistry();
		for (String handler : handlers) {
			registry.register(fixture().handlers().find(handler).orElseThrow());
		}
		return instance(scheduleStore(dataSource), dataSource, registry).withDeclarationRefresh(refresh);
	}

	/**
	 * A schedule as the code declares it; no worker runs the jobs here, so each tick fires
	 * although the last one's job still waits ({@link OverlapPolicy#ALLOW}).
	 */
	private static ScheduleDefinition declared(String name, String handler, Recurrence recurrence) {
		return ScheduleDefinition.of(name, handler, recurrence).withOverlap(OverlapPolicy.ALLOW);
	}

	private static void start(Schedules instance, ScheduleDefinition... annotated) {
		instance.declare(ScheduleSource.PROPERTIES, List.of());
		instance.declare(ScheduleSource.ANNOTATION, List.of(annotated));
	}

	/** Makes each named schedule due, runs a firing pass on every instance, and returns the jobs fired. */
	private List<FiredTick> tick(List<? extends Schedules> instances, String... names) {
		for (String name : names) {
			moveNextRunBack(name, Duration.ofSeconds(1));
		}
		List<FiredTick> fired = new ArrayList<>();
		instances.forEach((instance) -> fired.addAll(instance.fireDue()));
		return fired.stream().filter((tick) -> !tick.skipped()).toList();
	}

	/**
	 * Issue 40: a newer version adds a schedule; an instance of the older version, started
	 * beside it, does not declare it and must not orphan it while the newer instance lives. It
	 * goes on firing, once per tick, whichever instance fires.
	 */
	@Test
	default void anOlderInstanceStartedAfterANewerOneLeavesTheNewerOnesScheduleFiring() {
		handler("tick", (payload, context) -> null);
		handler("v2.tick", (payload, context) -> null);
		Recurrence hourly = Recurrence.every(Duration.ofHours(1));
		try (HikariDataSource pool = isolatedDatabase().newDataSource(4)) {
			DefaultSchedules newer = version(isolatedDatabase().dataSource(), Duration.ofMinutes(1), "tick", "v2.tick");
			DefaultSchedules older = version(pool, Duration.ofMinutes(1), "tick");
			start(newer, declared("shared", "tick", hourly), declared("v2-tick", "v2.tick", hourly));
			start(older, declared("shared", "tick", hourly));
			assertThat(newer.find("v2-tick").orElseThrow().orphaned()).isFalse();
			for (int round = 1; round <= 3; round++) {
				assertThat(tick(List.of(older, newer), "v2-tick", "shared")).extracting(FiredTick::schedule)
					.containsExactlyInAnyOrder("v2-tick", "shared");
				assertThat(jobsOf("v2.tick")).hasSize(round);
				assertThat(jobsOf("tick")).hasSize(round);
			}
		}
	}

	/**
	 * The other start order, and two versions that disagree: an older instance, then a newer
	 * one that changes a shared schedule and adds one, then another older instance. The newer
	 * one's schedule stays declared; the shared one has the definition of the instance that
	 * started last, which no instance's refresh rewrites (no flip-flop), and each tick of both
	 * fires once.
	 */
	@Test
	default void instancesOfTwoVersionsStartedInTurnKeepBothSchedulesFiringOncePerTick() throws Exception {
		handler("tick", (payload, context) -> null);
		handler("v2.tick", (payload, context) -> null);
		Recurrence hourly = Recurrence.every(Duration.ofHours(1));
		Recurrence halfHourly = Recurrence.every(Duration.ofMinutes(30));
		try (HikariDataSource olderPool = isolatedDatabase().newDataSource(4);
				HikariDataSource laterPool = isolatedDatabase().newDataSource(4)) {
			// The older ones refresh at every pass; the newer one's declaration lasts the test.
			DefaultSchedules older = version(olderPool, Duration.ofMillis(1), "tick");
			DefaultSchedules newer = version(isolatedDatabase().dataSource(), Duration.ofMinutes(1), "tick", "v2.tick");
			DefaultSchedules laterOlder = version(laterPool, Duration.ofMillis(1), "tick");
			start(older, declared("shared", "tick", hourly));
			start(newer, declared("shared", "tick", halfHourly),
					declared("v2-tick", "v2.tick", hourly));
			assertThat(newer.find("shared").orElseThrow().definition().recurrence()).isEqualTo(halfHourly);
			start(laterOlder, declared("shared", "tick", hourly));
			assertThat(newer.find("v2-tick").orElseThrow().orphaned()).isFalse();
			assertThat(newer.find("shared").orElseThrow().definition().recurrence()).isEqualTo(hourly);
			List<DefaultSchedules> all = List.of(older, newer, laterOlder);
			for (int round = 1; round <= 3; round++) {
				// Past the older instances' own declarations (three of their 1 ms refreshes).
				awaitDatabaseClockPast(databaseNow().plusMillis(3));
				assertThat(tick(all, "v2-tick", "shared")).extracting(FiredTick::schedule)
					.containsExactlyInAnyOrder("v2-tick", "shared");
				assertThat(jobsOf("v2.tick")).hasSize(round);
				assertThat(jobsOf("tick")).hasSize(round);
				assertThat(newer.find("shared").orElseThrow().definition().recurrence()).isEqualTo(hourly);
				assertThat(newer.find("v2-tick").orElseThrow().orphaned()).isFalse();
			}
		}
	}

	/**
	 * A schedule that no live instance declares any more (the newer instance went away, and
	 * the older one never declared it) is orphaned once its last declaration has lapsed (three
	 * of the declaring instance's refreshes), by the older instance's firing pass, and fires no
	 * more; declared again, it fires again.
	 */
	@Test
	default void aScheduleThatNoLiveInstanceDeclaresIsOrphanedOnceItsDeclarationLapses() {
		handler("tick", (payload, context) -> null);
		handler("v2.tick", (payload, context) -> null);
		Recurrence hourly = Recurrence.every(Duration.ofHours(1));
		try (HikariDataSource pool = isolatedDatabase().newDataSource(4)) {
			DefaultSchedules newer = version(isolatedDatabase().dataSource(), Duration.ofSeconds(1), "tick", "v2.tick");
			DefaultSchedules older = version(pool, Duration.ofMillis(20), "tick");
			start(newer, declared("v2-tick", "v2.tick", hourly));
			start(older);
			assertThat(older.find("v2-tick").orElseThrow().orphaned()).isFalse();
			// The newer instance is gone: it keeps its declaration no more.
			await().atMost(SCHEDULE_WAIT).pollInterval(Duration.ofMillis(20)).until(() -> {
				older.fireDue();
				return older.find("v2-tick").orElseThrow().orphaned();
			});
			assertThat(tick(List.of(older), "v2-tick")).isEmpty();
			assertThat(jobsOf("v2.tick")).isEmpty();
			// It comes back: its refresh declares the schedule again, and that pass fires the
			// tick missed meanwhile (once, by the misfire policy).
			await().atMost(SCHEDULE_WAIT).pollInterval(Duration.ofMillis(50)).until(() -> {
				newer.fireDue();
				return !newer.find("v2-tick").orElseThrow().orphaned();
			});
			assertThat(jobsOf("v2.tick")).hasSize(1);
			assertThat(tick(List.of(older, newer), "v2-tick")).extracting(FiredTick::schedule)
				.containsExactly("v2-tick");
			assertThat(jobsOf("v2.tick")).hasSize(2);
		}
	}

	// --- where instances and callers meet

	/**
	 * A trigger that read the schedule before the firer moved it on, and writes after: the
	 * trigger must not put the fired tick back, so each tick still gives one job.
	 */
	@Test
	default void aTriggerRacingTheFirerLeavesOneJobPerTick() throws Exception {
		assumeOwnClaimMethod();
		fixture().register(HandlerDefinition.of("report", "default", (payload, context) -> null));
		DataSource dataSource = isolatedDatabase().dataSource();
		CountDownLatch read = new CountDownLatch(1);
		CountDownLatch resume = new CountDownLatch(1);
		AtomicBoolean armed = new AtomicBoolean();
		ScheduleStore heldAfterRead = afterEachRead(dataSource, (store, row) -> {
			if (armed.getAndSet(false)) {
				read.countDown();
				try {
					assertThat(resume.await(30, TimeUnit.SECONDS)).isTrue();
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					throw new IllegalStateException(ex);
				}
			}
		});
		Schedules firer = instance(scheduleStore(dataSource), dataSource, fixture().handlers());
		Schedules operator = instance(heldAfterRead, dataSource, fixture().handlers());
		firer.create(ScheduleDefinition.of("hourly", "report", Recurrence.every(Duration.ofHours(1))));
		moveNextRunBack("hourly", Duration.ofSeconds(1));
		armed.set(true);
		CompletableFuture<Long> trigger = CompletableFuture.supplyAsync(() -> operator.trigger("hourly"));
		try {
			assertThat(read.await(30, TimeUnit.SECONDS)).isTrue();
			assertThat(firer.fireDue()).singleElement().satisfies((tick) -> assertThat(tick.skipped()).isFalse());
		}
		finally {
			resume.countDown();
		}
		long triggered = trigger.get(30, TimeUnit.SECONDS);
		List<FiredTick> again = firer.fireDue();
		assertThat(again).as("ticks fired again after the trigger").isEmpty();
		List<JobRecord> jobs = jobsOf("report");
		assertThat(jobs).hasSize(2).extracting(JobRecord::id).contains(triggered);
		assertThat(jobs).extracting(JobRecord::scheduledFor).doesNotHaveDuplicates();
	}

	/**
	 * An operation that loses its compare-and-set every time (the schedule changes after each
	 * of its reads) gives up after a bounded number of tries, having changed nothing.
	 */
	@Test
	default void anOperationThatKeepsLosingItsRaceFailsAndChangesNothing() {
		assumeOwnClaimMethod();
		fixture().register(HandlerDefinition.of("report", "default", (payload, context) -> null));
		DataSource dataSource = isolatedDatabase().dataSource();
		AtomicInteger reads = new AtomicInteger();
		ScheduleStore changedAfterEachRead = afterEachRead(dataSource, (store, row) -> {
			reads.incrementAndGet();
			assertThat(store.setPaused(row.name(), row.version(), row.paused(), null)).isTrue();
		});
		Schedules schedules = instance(changedAfterEachRead, dataSource, fixture().handlers());
		schedules.create(ScheduleDefinition.of("hourly", "report", Recurrence.every(Duration.ofHours(1))));
		assertThatThrownBy(() -> schedules.trigger("hourly")).isInstanceOf(ConcurrentScheduleChangeException.class)
			.hasMessageContaining("hourly");
		assertThat(reads).hasValue(Schedules.MAX_RACES + 1);
		assertThatThrownBy(() -> schedules.pause("hourly")).isInstanceOf(ConcurrentScheduleChangeException.class);
		assertThat(jobsOf("report")).isEmpty();
		assertThat(scheduleStore(dataSource).find("hourly").orElseThrow().paused()).isFalse();
	}

	/**
	 * A schedule registered where its handler lives (queue {@code mail}, 7 attempts), fired by
	 * an instance that lacks the handler: the job lands in {@code mail} with the handler's
	 * settings and the schedule's priority, and runs on the instance that has the handler. A
	 * schedule stored without its settings (before they were stored) is left by that instance
	 * to the one with the handler, never fired into a queue by guess.
	 */
	@Test
	default void anInstanceWithoutTheHandlerFiresTheJobTheScheduleWasRegisteredWith() throws Exception {
		assumeOwnClaimMethod();
		CountDownLatch ran = new CountDownLatch(2);
		fixture().register(new HandlerDefinition("mail.digest", "mail", 7, null, Set.of(), (payload, context) -> {
			ran.countDown();
			return null;
		}, "mail.digest"));
		DataSource home = isolatedDatabase().dataSource();
		Schedules registering = instance(scheduleStore(home), home, fixture().handlers());
		Recurrence hourly = Recurrence.every(Duration.ofHours(1));
		registering.create(ScheduleDefinition.of("digest", "mail.digest", hourly).withPriority(5));
		registering.create(ScheduleDefinition.of("legacy", "mail.digest", hourly));
		fixture().jdbc()
			.update("UPDATE " + fixture().table().replace("queue_job", "queue_schedule")
					+ " SET queue = NULL, max_attempts = NULL WHERE name = 'legacy'");
		moveNextRunBack("digest", Duration.ofSeconds(1));
		moveNextRunBack("legacy", Duration.ofSeconds(2));
		Instant legacyDue = registering.find("legacy").orElseThrow().nextRunAt();
		try (HikariDataSource pool = isolatedDatabase().newDataSource(4)) {
			Schedules foreign = instance(scheduleStore(pool), pool, new HandlerRegistry());
			List<FiredTick> fired = foreign.fireDue();
			assertThat(fired).singleElement().satisfies((tick) -> {
				assertThat(tick.schedule()).isEqualTo("digest");
				assertThat(tick.skipped()).isFalse();
			});
			JobRecord job = fixture().job(fired.get(0).jobId());
			assertThat(job.queue()).isEqualTo("mail");
			assertThat(job.maxAttempts()).isEqualTo(7);
			assertThat(job.priority()).isEqualTo(5);
			assertThat(registering.find("legacy").orElseThrow().nextRunAt()).isEqualTo(legacyDue);
		}
		assertThat(registering.fireDue()).singleElement().satisfies((tick) -> {
			assertThat(tick.schedule()).isEqualTo("legacy");
			JobRecord job = fixture().job(tick.jobId());
			assertThat(job.queue()).isEqualTo("mail");
			assertThat(job.maxAttempts()).isEqualTo(7);
		});
		fixture().startManager((settings) -> settings);
		assertThat(ran.await(SCHEDULE_WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
		await().atMost(SCHEDULE_WAIT)
			.pollInterval(Duration.ofMillis(20))
			.until(() -> jobsOf("mail.digest").stream().allMatch((job) -> job.status() == JobStatus.SUCCEEDED));
	}

	/**
	 * The firer passes over a schedule whose row a caller's transaction holds (it paused it
	 * and has not committed): the other due schedules fire at once, and the held one fires
	 * at the next pass once the caller rolls back.
	 */
	@Test
	default void theFirerPassesOverAScheduleThatACallersTransactionHolds() throws Exception {
		assumeOwnClaimMethod();
		assumeTrue(isolatedDatabase().dialect().supports(ClaimMethod.LOCK_THEN_UPDATE),
				"without row locks (SQLite) a caller's write holds every writer until it ends");
		fixture().register(HandlerDefinition.of("held", "default", (payload, context) -> null));
		fixture().register(HandlerDefinition.of("free", "default", (payload, context) -> null));
		DataSource dataSource = isolatedDatabase().dataSource();
		Schedules schedules = instance(scheduleStore(dataSource), dataSource, fixture().handlers());
		Recurrence hourly = Recurrence.every(Duration.ofHours(1));
		schedules.create(ScheduleDefinition.of("held", "held", hourly));
		schedules.create(ScheduleDefinition.of("free", "free", hourly));
		// The held one is the most overdue, so the firer comes to it first.
		moveNextRunBack("held", Duration.ofSeconds(10));
		moveNextRunBack("free", Duration.ofSeconds(5));
		try (OpenTransaction<Boolean> caller = OpenTransaction.begin(dataSource, () -> schedules.pause("held"))) {
			assertThat(caller.result()).isTrue();
			Instant started = Instant.now();
			List<FiredTick> fired = CompletableFuture.supplyAsync(schedules::fireDue).get(5, TimeUnit.SECONDS);
			assertThat(Duration.between(started, Instant.now())).isLessThan(Duration.ofSeconds(2));
			assertThat(fired).extracting(FiredTick::schedule).containsExactly("free");
		}
		assertThat(schedules.fireDue()).extracting(FiredTick::schedule).containsExactly("held");
		assertThat(jobsOf("held")).hasSize(1);
		assertThat(jobsOf("free")).hasSize(1);
	}

}
