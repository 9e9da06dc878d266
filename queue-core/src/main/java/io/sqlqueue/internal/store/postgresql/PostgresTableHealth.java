package io.sqlqueue.internal.store.postgresql;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.JdbcOperations;

import io.sqlqueue.admin.TableHealth;
import io.sqlqueue.internal.store.TableHealthReader;

import static io.sqlqueue.internal.store.TableHealthReader.longOrNull;

/**
 * The queue's tables' health on PostgreSQL, from the statistics and the catalogs, never from
 * the tables: rows and dead rows from {@code pg_stat_user_tables}, sizes from
 * {@code pg_table_size} and {@code pg_indexes_size} (which look at the files' lengths), and
 * what holds the horizon back, that is what keeps {@code VACUUM} from reclaiming the dead
 * rows every claim and completion leaves: the sessions of this database with a
 * {@code backend_xmin} (and those of any database that hold every horizon, such as a
 * {@code walsender} with hot standby feedback), prepared transactions of this database, and
 * replication slots with an {@code xmin} or {@code catalog_xmin}. Since PostgreSQL 14 a
 * session in another database holds back only the shared catalogs, so those are left out.
 * <p>
 * Another role's session shows its {@code backend_xmin} but not its start to a role without
 * {@code pg_read_all_stats} (or {@code pg_monitor}): its age is then unknown.
 */
final class PostgresTableHealth implements TableHealthReader {

	private static final String TABLES = """
			SELECT c.relname AS name, s.n_live_tup AS live_rows, s.n_dead_tup AS dead_rows,
			       pg_table_size(c.oid) AS data_bytes, pg_indexes_size(c.oid) AS index_bytes
			FROM pg_class c
			JOIN pg_namespace n ON n.oid = c.relnamespace
			LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid
			WHERE n.nspname = COALESCE(CAST(? AS text), current_schema()) AND c.relkind IN ('r', 'p')
			  AND c.relname IN (%s)
			ORDER BY c.relname""".formatted(TableHealthReader.tableList());

	private static final String MILLIS_SINCE = "CAST(EXTRACT(EPOCH FROM clock_timestamp() - %s) * 1000 AS bigint)";

	/** The sessions whose snapshot holds this database's horizon: of this database, or any walsender. */
	private static final String HOLDING_SESSIONS = """
			backend_xmin IS NOT NULL AND pid <> pg_backend_pid() AND backend_type <> 'autovacuum worker'
			   AND (datname = current_database() OR backend_type = 'walsender')""";

	/**
	 * The oldest transaction id among the holders {@link #HOLDERS} reports, as text, less the
	 * slots' {@code catalog_xmin} (which holds back the catalogs only), and with the sessions' own
	 * transaction ids besides their snapshots: a transaction that wrote and sits idle between
	 * statements has no {@code backend_xmin} but holds the horizon all the same. No row when
	 * nothing holds it ({@link PostgresDialect#horizonQuery()}).
	 */
	static final String OLDEST_HOLDER = """
			SELECT CAST(xid AS text) FROM (
			    SELECT backend_xmin AS xid FROM pg_stat_activity WHERE %s
			    UNION ALL
			    SELECT backend_xid FROM pg_stat_activity
			    WHERE backend_xid IS NOT NULL AND pid <> pg_backend_pid() AND datname = current_database()
			    UNION ALL
			    SELECT transaction FROM pg_prepared_xacts WHERE database = current_database()
			    UNION ALL
			    SELECT xmin FROM pg_replication_slots WHERE xmin IS NOT NULL) holders
			ORDER BY age(xid) DESC
			LIMIT 1""".formatted(HOLDING_SESSIONS);

	private static final String HOLDERS = """
			(SELECT 'transaction' AS kind, pid, CAST(NULL AS text) AS name, application_name AS application, state,
			        %1$s AS age_millis, age(backend_xmin) AS xmin_age, CAST(NULL AS integer) AS catalog_xmin_age
			 FROM pg_stat_activity
			 WHERE %4$s
			 ORDER BY age(backend_xmin) DESC LIMIT %3$d)
			UNION ALL
			(SELECT 'prepared', CAST(NULL AS integer), gid, owner, CAST(NULL AS text), %2$s, age(transaction), CAST(NULL AS integer)
			 FROM pg_prepared_xacts
			 WHERE database = current_database()
			 ORDER BY age(transaction) DESC LIMIT %3$d)
			UNION ALL
			(SELECT 'replication-slot', active_pid, slot_name, slot_type,
			        CASE WHEN active THEN 'active' ELSE 'inactive' END, CAST(NULL AS bigint), age(xmin), age(catalog_xmin)
			 FROM pg_replication_slots
			 WHERE xmin IS NOT NULL OR catalog_xmin IS NOT NULL
			 ORDER BY greatest(age(xmin), age(catalog_xmin)) DESC LIMIT %3$d)""".formatted(
			MILLIS_SINCE.formatted("COALESCE(xact_start, query_start)"), MILLIS_SINCE.formatted("prepared"),
			TableHealthReader.MAX_HOLDERS, HOLDING_SESSIONS);

	private final JdbcOperations jdbc;

	private final @Nullable String schema;

	PostgresTableHealth(JdbcOperations jdbc, @Nullable String schema) {
		this.jdbc = jdbc;
		this.schema = schema;
	}

	@Override
	public List<String> statements() {
		return List.of(TABLES, HOLDERS);
	}

	@Override
	public TableHealth read() {
		List<TableHealth.Table> tables = this.jdbc.query(TABLES,
				(rs, row) -> new TableHealth.Table(rs.getString("name"), longOrNull(rs, "live_rows"),
						longOrNull(rs, "dead_rows"), longOrNull(rs, "data_bytes"), longOrNull(rs, "index_bytes"), null),
				this.schema);
		List<TableHealth.Holder> holders = this.jdbc.query(HOLDERS, (rs, row) -> {
			Long millis = longOrNull(rs, "age_millis");
			return new TableHealth.Holder(rs.getString("kind"), longOrNull(rs, "pid"), rs.getString("name"),
					rs.getString("application"), rs.getString("state"),
					(millis != null) ? Duration.ofMillis(Math.max(0, millis)) : null, longOrNull(rs, "xmin_age"),
					longOrNull(rs, "catalog_xmin_age"));
		});
		return new TableHealth("postgresql", Instant.now(), tables, holders, null, List.of("free space"), null);
	}

}
