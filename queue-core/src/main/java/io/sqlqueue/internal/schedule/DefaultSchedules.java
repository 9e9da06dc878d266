package io.sqlqueue.internal.schedule;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.util.RawValue;

import io.sqlqueue.Job;
import io.sqlqueue.JobListener;
import io.sqlqueue.JobQueue;
import io.sqlqueue.JobStatus;
import io.sqlqueue.handler.HandlerDefinition;
import io.sqlqueue.internal.handler.HandlerRegistry;
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

/**
 * The {@link Schedules} the starter builds.
 * <p>
 * <b>Declared by live instances.</b> An instance that declares schedules from its code
 * ({@link #declare}) keeps them declared: at start-up and then every declaration refresh
 * (the Manager's heartbeat interval in the starter, at a firing pass), it moves each one's
 * {@code declared_until} to the database's clock plus three refreshes. A schedule of a
 * source that this instance declares but that its code does not is marked orphaned only
 * once that time has passed: no live instance has declared it for three refreshes (the
 * time after which an instance's row shows as gone). So an instance of an older version,
 * started beside a newer one, leaves the newer one's schedules firing, and a schedule that
 * no running version declares any more is orphaned within about four refreshes of the last
 * instance that declared it going away. A refresh only keeps a schedule declared (and
 * brings it back from orphaned); it never writes a definition. Definitions are written at
 * start-up only, so when two live versions declare one schedule differently, the one that
 * started last has its definition stored, and nothing flips it back until an instance
 * starts again.
 */
public class DefaultSchedules implements Schedules {

	/** Most ticks counted through to find the latest missed one; past that, the schedule jumps ahead. */
	private static final int MAX_TICKS_SCANNED = 10_000;

	/** Most schedules one firing pass handles. */
	private static final int BATCH_SIZE = 100;


	private static final Logger logger = LoggerFactory.getLogger(DefaultSchedules.class);

	private final ScheduleStore store;

	private final JobQueue jobs;

	private final HandlerRegistry handlers;

	private final JobListener listener;

	/** How often this instance keeps its declarations; they last three times as long. */
	private volatile Duration declarationRefresh = Duration.ofSeconds(20);

	/** What this instance declared, by source: empty until it has declared. */
	private volatile Map<ScheduleSource, Set<String>> declaredHere = Map.of();

	/** {@link System#nanoTime()} of the next refresh of the declarations. */
	private volatile long nextRefresh;

	public DefaultSchedules(ScheduleStore store, JobQueue jobs, HandlerRegistry handlers, JobListener listener) {
		this.store = store;
		this.jobs = jobs;
		this.handlers = handlers;
		this.listener = JobListener.guarded(listener);
	}

	/**
	 * How often this instance keeps the schedules it declared declared (default 20 s, the
	 * Manager's heartbeat interval); a declaration not kept for three times as long counts
	 * as gone. Returns this.
	 */
	public DefaultSchedules withDeclarationRefresh(Duration every) {
		if (every.isNegative() || every.isZero()) {
			throw new IllegalArgumentException("The declaration refresh must be positive, not " + every);
		}
		this.declarationRefresh = every;
		return this;
	}

	private Duration declarationLifetime() {
		return this.declarationRefresh.multipliedBy(3);
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * A schedule of this source that this instance does not declare is orphaned only when no
	 * live instance declares it (see the class's comment); definitions are written here only,
	 * so the instance that started last has its definition stored.
	 */
	@Override
	public void declare(ScheduleSource source, List<ScheduleDefinition> schedules) {
		Set<String> names = new HashSet<>();
		for (ScheduleDefinition schedule : schedules) {
			if (this.handlers.find(schedule.handler()).isEmpty()) {
				throw new IllegalStateException("Schedule '" + schedule.name() + "' names handler '"
						+ schedule.handler() + "', which this application does not have");
			}
			if (!names.add(schedule.name())) {
				throw new IllegalStateException("Schedule '" + schedule.name() + "' is declared twice");
			}
		}
		Map<String, ScheduleRow> stored = new LinkedHashMap<>();
		this.store.all().forEach((row) -> stored.put(row.name(), row));
		Instant now = this.store.now();
		for (ScheduleDefinition declared : schedules) {
			ScheduleDefinition schedule = settled(declared);
			ScheduleRow row = stored.get(schedule.name());
			if (row == null) {
				this.store.insert(toRow(schedule, source, schedule.recurrence().first(now)));
			}
			else if (!definitionOf(row).equals(schedule) || !row.source().equals(source.name()) || row.orphaned()) {
				redefine(schedule, source);
			}
		}
		this.store.declared(names, declarationLifetime());
		Map<ScheduleSource, Set<String>> declared = new LinkedHashMap<>(this.declaredHere);
		declared.put(source, Set.copyOf(names));
		this.declaredHere = Map.copyOf(declared);
		this.nextRefresh = System.nanoTime() + this.declarationRefresh.toNanos();
		Set<String> here = declaredHere();
		stored.values()
			.stream()
			.filter((row) -> row.source().equals(source.name()) && !here.contains(row.name()) && !row.orphaned())
			.forEach((row) -> {
				if (this.store.orphan(row.name(), row.source())) {
					logger.warn("Schedule '{}' is no longer declared by the application ({}); it stops firing and "
							+ "shows as orphaned until it is deleted", row.name(), source);
				}
				else {
					logger.info("Schedule '{}' ({}) is not declared by this application, but by another live "
							+ "instance (until {}); it goes on firing", row.name(), source, row.declaredUntil());
				}
			});
	}

	private Set<String> declaredHere() {
		Set<String> all = new HashSet<>();
		this.declaredHere.values().forEach(all::addAll);
		return all;
	}

	/**
	 * Every declaration refresh, once this instance has declared: keeps what it declared
	 * declared, and orphans the schedules of its sources that no live instance declares any
	 * more. A failure is logged and tried again at the next refresh.
	 */
	private void keepDeclarations() {
		Map<ScheduleSource, Set<String>> declared = this.declaredHere;
		long now = System.nanoTime();
		if (declared.isEmpty() || now - this.nextRefresh < 0) {
			return;
		}
		this.nextRefresh = now + this.declarationRefresh.toNanos();
		try {
			// Row by row, each in a transaction of its own that passes over a row a caller holds,
			// as the firing does: a declaration missed now is kept at the next refresh.
			Set<String> here = declaredHere();
			Duration lifetime = declarationLifetime();
			for (ScheduleRow row : this.store.all()) {
				Instant until = row.declaredUntil();
				boolean expired = until == null || until.isBefore(row.databaseNow());
				if (here.contains(row.name())) {
					this.store.keepDeclared(row.name(), lifetime);
				}
				else if (expired && !row.orphaned()
						&& declared.keySet().stream().anyMatch((source) -> source.name().equals(row.source()))
						&& this.store.orphanUnlessHeld(row.name(), row.source())) {
					logger.warn("Schedule '{}' ({}) has been declared by no live instance since {}; it stops firing "
							+ "and shows as orphaned until it is deleted or declared again", row.name(), row.source(),
							until);
				}
			}
		}
		catch (RuntimeException ex) {
			logger.warn("sqlqueue could not keep its schedules declared; trying again in {}", this.declarationRefresh,
					ex);
		}
	}

	@Override
	public ScheduleRecord create(ScheduleDefinition schedule) {
		if (!this.store.insert(toRow(settled(schedule), ScheduleSource.API,
				schedule.recurrence().first(this.store.now())))) {
			throw new IllegalStateException("A schedule named '" + schedule.name() + "' exists already");
		}
		return require(schedule.name());
	}

	@Override
	public ScheduleRecord update(ScheduleDefinition schedule) {
		ScheduleRow row = requireRow(schedule.name());
		redefine(settled(schedule), ScheduleSource.valueOf(row.source()));
		return require(schedule.name());
	}

	/** Replaces the stored definition (a new recurrence from its next tick), by compare-and-set. */
	private void redefine(ScheduleDefinition schedule, ScheduleSource source) {
		changed(schedule.name(), (row) -> {
			boolean newTimes = !definitionOf(row).recurrence().equals(schedule.recurrence());
			return this.store.updateDefinition(toRow(schedule, source, row.nextRunAt()),
					newTimes ? schedule.recurrence().first(row.databaseNow()) : null, row.version());
		}).orElseThrow(() -> noSchedule(schedule.name()));
	}

	@Override
	public boolean pause(String name) {
		return changed(name, (row) -> this.store.setPaused(name, row.version(), true, null)).isPresent();
	}

	@Override
	public boolean resume(String name) {
		return changed(name, (row) -> this.store.setPaused(name, row.version(), false,
				definitionOf(row).recurrence().first(row.databaseNow()))).isPresent();
	}

	@Override
	public long trigger(String name) {
		long[] id = new long[1];
		changed(name, (row) -> {
			Job job = jobOf(row).orElseThrow(() -> new IllegalStateException("Schedule '" + name
					+ "' has no queue or attempts stored, and this instance lacks its handler '" + row.handler()
					+ "': trigger it where the handler is, or declare it again there to store them"));
			return this.store.inTransaction(() -> {
				if (!this.store.take(name, row.version())) {
					return false;
				}
				id[0] = this.jobs.enqueueForTick(job, row.databaseNow());
				this.store.advance(name, row.nextRunAt(), null, id[0]);
				return true;
			});
		}).orElseThrow(() -> noSchedule(name));
		return id[0];
	}

	/**
	 * Reads the schedule and writes {@code change}, which returns false when the schedule's
	 * version moved since the read; reads again and retries then, at most {@value #MAX_RACES}
	 * times. Empty when there is no such schedule (any more).
	 */
	private Optional<ScheduleRow> changed(String name, Predicate<ScheduleRow> change) {
		for (int attempt = 0; attempt < MAX_RACES; attempt++) {
			Optional<ScheduleRow> row = this.store.find(name);
			if (row.isEmpty() || change.test(row.get())) {
				return row;
			}
		}
		throw new ConcurrentScheduleChangeException(name, MAX_RACES);
	}

	@Override
	public boolean delete(String name) {
		return this.store.delete(name);
	}

	@Override
	public List<ScheduleRecord> list() {
		return this.store.all().stream().map(DefaultSchedules::toRecord).toList();
	}

	@Override
	public Optional<ScheduleRecord> find(String name) {
		return this.store.find(name).map(DefaultSchedules::toRecord);
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * Every declaration refresh, a pass first keeps this instance's declarations (see the
	 * class's comment).
	 */
	@Override
	public List<FiredTick> fireDue() {
		keepDeclarations();
		List<FiredTick> handled = new ArrayList<>();
		for (ScheduleRow row : this.store.due(BATCH_SIZE)) {
			try {
				handled.addAll(fire(row));
			}
			catch (RuntimeException ex) {
				logger.warn("Schedule '{}' could not fire; trying again at the next pass", row.name(), ex);
			}
		}
		handled.forEach((tick) -> this.listener.ticked(tick.schedule(), tick.tick(), tick.lag(), !tick.skipped()));
		return handled;
	}

	private List<FiredTick> fire(ScheduleRow row) {
		Optional<Job> job = jobOf(row);
		if (job.isEmpty()) {
			logger.debug("Schedule '{}' has no queue or attempts stored and this instance lacks its handler '{}': "
					+ "its tick is left to an instance that has it", row.name(), row.handler());
			return List.of();
		}
		ScheduleDefinition schedule = definitionOf(row);
		Recurrence recurrence = schedule.recurrence();
		Instant now = row.databaseNow();
		List<Instant> due = new ArrayList<>();
		Instant tick = row.nextRunAt();
		while (!tick.isAfter(now) && due.size() < MAX_TICKS_SCANNED) {
			due.add(tick);
			tick = recurrence.next(tick);
		}
		Instant next = tick.isAfter(now) ? tick : recurrence.next(now);
		List<Instant> toFire = switch (schedule.misfire()) {
			case FIRE_ONCE -> List.of(due.get(due.size() - 1));
			case SKIP -> (due.size() == 1) ? due : List.of();
			case EACH -> due.subList(Math.max(0, due.size() - MAX_MISSED_TICKS), due.size());
		};
		boolean overlapping = schedule.overlap() == OverlapPolicy.SKIP && row.lastJobStatus() != null
				&& isUnfinished(JobStatus.valueOf(row.lastJobStatus()));
		return this.store.inTransaction(() -> {
			if (!this.store.takeUnlessHeld(row.name(), row.version())) {
				return List.of();
			}
			List<FiredTick> handled = new ArrayList<>();
			Long lastJob = null;
			for (Instant each : due) {
				Long id = (toFire.contains(each) && !overlapping) ? this.jobs.enqueueForTick(job.get(), each) : null;
				lastJob = (id != null) ? id : lastJob;
				handled.add(new FiredTick(row.name(), each, id, Duration.between(each, now)));
			}
			if (overlapping) {
				logger.info("Schedule '{}' skipped its tick {}: its previous job {} is still {}", row.name(),
						due.get(due.size() - 1), row.lastJobId(), row.lastJobStatus());
			}
			this.store.advance(row.name(), next, due.get(due.size() - 1), lastJob);
			return handled;
		});
	}

	private static boolean isUnfinished(JobStatus status) {
		return status == JobStatus.QUEUED || status == JobStatus.RUNNING;
	}

	/**
	 * The definition with the settings its jobs need from a handler filled in from this
	 * instance's, where it has the handler: the queue, and the attempts (the handler's, else
	 * the configured default). Without the handler, what the definition names stays.
	 */
	private ScheduleDefinition settled(ScheduleDefinition schedule) {
		Optional<HandlerDefinition> handler = this.handlers.find(schedule.handler());
		if (schedule.settled() || handler.isEmpty()) {
			return schedule;
		}
		Integer handlerAttempts = handler.get().maxAttempts();
		return schedule.withQueue((schedule.queue() != null) ? schedule.queue() : handler.get().queue())
			.withMaxAttempts((schedule.maxAttempts() != null) ? schedule.maxAttempts()
					: (handlerAttempts != null) ? handlerAttempts : this.jobs.defaultMaxAttempts());
	}

	/**
	 * The job every tick of the schedule enqueues, with its stored settings; empty when they
	 * are not all stored and this instance lacks the handler to fill them in.
	 */
	private Optional<Job> jobOf(ScheduleRow row) {
		ScheduleDefinition schedule = settled(definitionOf(row));
		if (!schedule.settled()) {
			return Optional.empty();
		}
		// The stored JSON as it is, not encoded again as a string.
		Job job = Job.of(schedule.handler(), new RawValue(schedule.payload()))
			.queue(Objects.requireNonNull(schedule.queue()))
			.maxAttempts(Objects.requireNonNull(schedule.maxAttempts()))
			.priority(schedule.priority());
		Duration expireAfter = schedule.expireAfter();
		job = (expireAfter != null) ? job.expireAfter(expireAfter) : job;
		String concurrencyKey = schedule.concurrencyKey();
		return Optional.of((concurrencyKey != null) ? job.concurrencyKey(concurrencyKey) : job);
	}

	private static IllegalStateException noSchedule(String name) {
		return new IllegalStateException("No schedule named '" + name + "'");
	}

	private ScheduleRecord require(String name) {
		return find(name).orElseThrow(() -> noSchedule(name));
	}

	private ScheduleRow requireRow(String name) {
		return this.store.find(name).orElseThrow(() -> noSchedule(name));
	}

	private static ScheduleRow toRow(ScheduleDefinition schedule, ScheduleSource source, Instant nextRunAt) {
		Recurrence recurrence = schedule.recurrence();
		Duration every = recurrence.every();
		Duration expireAfter = schedule.expireAfter();
		return new ScheduleRow(schedule.name(), schedule.handler(), schedule.queue(), schedule.priority(),
				schedule.maxAttempts(), (expireAfter != null) ? expireAfter.toMillis() : null,
				schedule.concurrencyKey(), schedule.payload(), recurrence.cron(), recurrence.zone(),
				(every != null) ? every.toMillis() : null, schedule.misfire().name(), schedule.overlap().name(),
				source.name(), false, false, nextRunAt, null, null, null, null, 0, nextRunAt, null);
	}

	private static ScheduleDefinition definitionOf(ScheduleRow row) {
		Long every = row.everyMillis();
		Recurrence recurrence = Recurrence.of(row.cron(), row.zone(),
				(every != null) ? Duration.ofMillis(every) : null);
		Long expireAfter = row.expireAfterMillis();
		return new ScheduleDefinition(row.name(), row.handler(), row.queue(), row.payload(), recurrence,
				MisfirePolicy.valueOf(row.misfire()), OverlapPolicy.valueOf(row.overlap()), row.priority(),
				row.maxAttempts(), (expireAfter != null) ? Duration.ofMillis(expireAfter) : null,
				row.concurrencyKey());
	}

	private static ScheduleRecord toRecord(ScheduleRow row) {
		@Nullable String status = row.lastJobStatus();
		return new ScheduleRecord(definitionOf(row), ScheduleSource.valueOf(row.source()), row.paused(),
				row.orphaned(), row.nextRunAt(), row.lastTickAt(), row.lastFiredAt(), row.lastJobId(),
				(status != null) ? JobStatus.valueOf(status) : null);
	}

}
