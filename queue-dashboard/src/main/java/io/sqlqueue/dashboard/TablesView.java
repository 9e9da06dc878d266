package io.sqlqueue.dashboard;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.jspecify.annotations.Nullable;

import io.sqlqueue.admin.TableHealth;

/**
 * What the table-health panel shows: the queue's tables with their rows and sizes, and what
 * holds the database's horizon back, as {@link io.sqlqueue.admin.QueueAdmin#tableHealth()}
 * last read them, with how old that reading is (times in milliseconds, as the page shows them).
 *
 * @param database the database family
 * @param readAt when the reading was taken, or {@code null} where this instance takes none
 * @param readingAgeMillis how old the reading is now, or {@code null} without one
 * @param tables the queue's tables (empty where the database reports none)
 * @param holders what holds the horizon back, oldest first within each kind
 * @param historyLength InnoDB's undo history not purged yet, or {@code null}
 * @param notReported what this database does not report
 * @param failure why the last reading failed, or {@code null}
 */
public record TablesView(String database, @Nullable Instant readAt, @Nullable Long readingAgeMillis,
		List<TableHealth.Table> tables, List<Holder> holders, @Nullable Long historyLength, List<String> notReported,
		@Nullable String failure) {

	/** The reading as the page shows it at {@code now}. */
	public static TablesView of(TableHealth health, Instant now) {
		Duration age = health.age(now);
		return new TablesView(health.database(), health.readAt(), (age != null) ? age.toMillis() : null,
				health.tables(), health.holders().stream().map(Holder::of).toList(), health.historyLength(),
				health.notReported(), health.failure());
	}

	/**
	 * One holder of the horizon (see {@link TableHealth.Holder}), its age in milliseconds.
	 * @param ageMillis how long it has been open, or {@code null} where not known
	 */
	public record Holder(String kind, @Nullable Long pid, @Nullable String name, @Nullable String application,
			@Nullable String state, @Nullable Long ageMillis, @Nullable Long xminAge) {

		static Holder of(TableHealth.Holder holder) {
			return new Holder(holder.kind(), holder.pid(), holder.name(), holder.application(), holder.state(),
					(holder.age() != null) ? holder.age().toMillis() : null, holder.xminAge());
		}

	}

}
