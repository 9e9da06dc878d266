package io.sqlqueue.benchmark;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * The database under test, and the statements the benchmark itself runs on it (emptying
 * the table, counting, sampling its size).
 */
record Target(String url, String user, String password, @Nullable String schema) {

	boolean isPostgres() {
		return this.url.startsWith("jdbc:postgresql:");
	}

	String name() {
		String rest = this.url.substring("jdbc:".length());
		return rest.substring(0, rest.indexOf(':'));
	}

	String table() {
		return table("queue_job");
	}

	Map<String, Object> properties() {
		Map<String, Object> properties = new LinkedHashMap<>();
		properties.put("spring.datasource.url", this.url);
		properties.put("spring.datasource.username", this.user);
		properties.put("spring.datasource.password", this.password);
		if (this.schema != null) {
			properties.put("sqlqueue.jdbc.schema", this.schema);
		}
		return properties;
	}

	JdbcTemplate jdbc() {
		DataSource dataSource = new DriverManagerDataSource(this.url, this.user, this.password);
		return new JdbcTemplate(dataSource);
	}

	/** Drops the benchmark's table (and on PostgreSQL its schema), so every run starts from the current migrations. */
	void drop() {
		if (isPostgres()) {
			jdbc().execute("DROP SCHEMA IF EXISTS \"" + this.schema + "\" CASCADE");
		}
		else {
			for (String table : new String[] { "queue_job", "queue_schedule", "queue_limit", "queue_flow",
					"queue_rate_window", "queue_dependency", "queue_batch", "queue_paused", "queue_instance", "queue_attempt",
					"queue_audit", "queue_job_tag", "queue_job_meta", "queue_count", "queue_count_turn",
					"queue_fairness", "queue_fair_key", "queue_job_step", "queue_job_signal", "queue_lease_extension",
					"sqlqueue_schema_history" }) {
				jdbc().execute("DROP TABLE IF EXISTS " + table);
			}
		}
	}

	void emptyTable() {
		// Limits a run declared (the next run's instances declare their own), and the attempts of its jobs.
		List<String> tables = new ArrayList<>(List.of(table()));
		for (String flowTable : new String[] { "queue_rate_window", "queue_limit", "queue_fairness", "queue_fair_key",
				"queue_flow", "queue_attempt" }) {
			tables.add(table(flowTable));
		}
		if (isPostgres()) {
			// Not DELETE: with autovacuum off, a run's deleted attempts (100,000 a drain) stayed as dead
			// rows, and the next runs' inserts went on growing the table.
			jdbc().execute("TRUNCATE " + String.join(", ", tables));
		}
		else {
			tables.forEach((table) -> jdbc().execute("DELETE FROM " + table));
		}
	}

	private String table(String name) {
		return (this.schema != null) ? "\"" + this.schema + "\"." + name : name;
	}

	long count(String where) {
		Long count = jdbc().queryForObject("SELECT COUNT(*) FROM " + table() + " WHERE " + where, Long.class);
		return (count != null) ? count : 0;
	}

	/** PostgreSQL only: the table's size with indexes and TOAST, and its live and dead tuples. */
	String tableSample() {
		if (!isPostgres()) {
			return "n/a";
		}
		String relation = (this.schema != null) ? this.schema + ".queue_job" : "queue_job";
		Map<String, Object> row = jdbc().queryForMap("""
				SELECT pg_total_relation_size(CAST(? AS regclass)) AS bytes, n_live_tup, n_dead_tup
				FROM pg_stat_user_tables WHERE relid = CAST(? AS regclass)""", relation, relation);
		return "bytes=" + row.get("bytes") + " live=" + row.get("n_live_tup") + " dead=" + row.get("n_dead_tup");
	}

	String settings() {
		if (!isPostgres()) {
			return name();
		}
		return jdbc().queryForObject("""
				SELECT 'PostgreSQL ' || current_setting('server_version') || ', shared_buffers='
				    || current_setting('shared_buffers') || ', synchronous_commit=' || current_setting('synchronous_commit')
				    || ', fsync=' || current_setting('fsync') || ', autovacuum=' || current_setting('autovacuum')
				    || ', max_connections=' || current_setting('max_connections')""", String.class);
	}

}
