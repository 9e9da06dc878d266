package io.sqlqueue.admin;

import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

import org.jspecify.annotations.Nullable;

/**
 * The health of the queue's own tables as last read (docs/operations.md, "Table health"):
 * their size and dead rows, and the transactions that hold the database's horizon back, so
 * that the dead rows every claim and completion leaves cannot be reclaimed. Read by one
 * periodic task from the database's catalogs, never per request; {@link #readAt} says how old
 * it is. What the database cannot tell cheaply is {@code null}, and named in
 * {@link #notReported}.
 *
 * @param database the database family ({@code postgresql}, {@code mariadb}, {@code h2}, {@code sqlite})
 * @param readAt when this was read, by this instance's clock, or {@code null} before the first reading
 * @param tables the queue's tables, by name
 * @param holders the oldest transactions (and on PostgreSQL prepared transactions and
 * replication slots) that hold the horizon back, oldest first within each kind
 * @param historyLength InnoDB's undo history not purged yet (MariaDB, MySQL), else {@code null}
 * @param notReported what this database does not report, in words
 * @param failure why the last reading failed, or {@code null}; the rest is then the reading before
 */
public record TableHealth(String database, @Nullable Instant readAt, List<Table> tables, List<Holder> holders,
		@Nullable Long historyLength, List<String> notReported, @Nullable String failure) {

	/** A transaction open in a session. */
	public static final String TRANSACTION = "transaction";

	/** A prepared transaction (two-phase commit) waiting for its commit or rollback. */
	public static final String PREPARED = "prepared";

	/** A replication slot (PostgreSQL) whose {@code xmin} or {@code catalog_xmin} is set. */
	public static final String REPLICATION_SLOT = "replication-slot";

	public TableHealth {
		tables = List.copyOf(tables);
		holders = List.copyOf(holders);
		notReported = List.copyOf(notReported);
	}

	/** Nothing read yet. */
	public static TableHealth notRead(String database) {
		return new TableHealth(database, null, List.of(), List.of(), null, List.of(), null);
	}

	/** This reading, marked as the one before a reading that failed for this reason. */
	public TableHealth failed(String reason) {
		return new TableHealth(this.database, this.readAt, this.tables, this.holders, this.historyLength,
				this.notReported, reason);
	}

	/** How old the reading is at {@code now}, or {@code null} before the first one. */
	public @Nullable Duration age(Instant now) {
		return (this.readAt != null) ? Duration.between(this.readAt, now) : null;
	}

	/** Dead rows of all the queue's tables, or {@code null} where the database does not report them. */
	public @Nullable Long deadRows() {
		List<Long> dead = this.tables.stream().map(Table::deadRows).filter(Objects::nonNull).toList();
		return dead.isEmpty() ? null : dead.stream().mapToLong(Long::longValue).sum();
	}

	/** The transaction or prepared transaction open longest, if any holds the horizon. */
	public Optional<Holder> oldestHolder() {
		return this.holders.stream()
			.filter((holder) -> holder.age() != null)
			.max(Comparator.comparing(Holder::age));
	}

	/**
	 * The holders that hold the queue back: open (or prepared) longer than {@code maxAge}
	 * while the queue has garbage the database cannot reclaim past them, that is dead rows
	 * (PostgreSQL) or unpurged undo history (MariaDB, MySQL). A replication slot has no age in
	 * time and is never among them (its {@code xmin} age is in {@link Holder#xminAge}). Empty
	 * when nothing holds the queue back, and where the database reports no holders.
	 */
	public List<Holder> holdingBack(Duration maxAge) {
		Long dead = deadRows();
		boolean garbage = (dead != null && dead > 0) || (this.historyLength != null && this.historyLength > 0);
		if (!garbage) {
			return List.of();
		}
		return this.holders.stream()
			.filter((holder) -> holder.age() != null && holder.age().compareTo(maxAge) > 0)
			.sorted(Comparator.comparing(Holder::age).reversed())
			.toList();
	}

	/**
	 * One of the queue's tables.
	 * @param name the table's name
	 * @param liveRows rows, as the database's statistics estimate them
	 * @param deadRows dead row versions not reclaimed yet (PostgreSQL), else {@code null}
	 * @param dataBytes the table's size on disk (with its TOAST table on PostgreSQL)
	 * @param indexBytes the size of its indexes
	 * @param freeBytes space allocated but free (MariaDB's {@code data_free}), else {@code null}
	 */
	public record Table(String name, @Nullable Long liveRows, @Nullable Long deadRows, @Nullable Long dataBytes,
			@Nullable Long indexBytes, @Nullable Long freeBytes) {
	}

	/**
	 * Something that holds the database's horizon back.
	 * @param kind {@link #TRANSACTION}, {@link #PREPARED} or {@link #REPLICATION_SLOT}
	 * @param pid the session's process (PostgreSQL) or thread (MariaDB) id, or a slot's active
	 * sender; {@code null} for a prepared transaction
	 * @param name a prepared transaction's gid or a slot's name, else {@code null}
	 * @param application who holds it: the session's {@code application_name} (PostgreSQL),
	 * its user and host (MariaDB), a prepared transaction's owner, a slot's type
	 * @param state the session's state ({@code idle in transaction}, …), a slot's
	 * {@code active}/{@code inactive}
	 * @param age how long the transaction has been open, or {@code null} where not known (a
	 * slot; another role's session without the right to see it)
	 * @param xminAge how many transactions old its {@code xmin} is (PostgreSQL), else {@code null}
	 * @param catalogXminAge a slot's {@code catalog_xmin} age, which holds back only the
	 * catalogs, else {@code null}
	 */
	public record Holder(String kind, @Nullable Long pid, @Nullable String name, @Nullable String application,
			@Nullable String state, @Nullable Duration age, @Nullable Long xminAge, @Nullable Long catalogXminAge) {
	}

}
