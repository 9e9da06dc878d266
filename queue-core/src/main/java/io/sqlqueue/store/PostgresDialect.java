package io.sqlqueue.store;

/**
 * PostgreSQL 12+: {@code jsonb} payloads, a one-statement claim whose candidates sit in a
 * {@code MATERIALIZED} CTE. A plain {@code WHERE id IN (SELECT … LIMIT ? FOR UPDATE SKIP LOCKED)}
 * may be re-evaluated by the planner and claim more rows than the limit; the materialized
 * CTE is evaluated exactly once.
 */
public final class PostgresDialect extends Dialect {

	@Override
	public String name() {
		return "postgresql";
	}

	@Override
	public String now() {
		return "now()";
	}

	/** {@code now()} is the transaction's start; a transactional handler's completion needs the time now. */
	@Override
	public String currentTime() {
		return "clock_timestamp()";
	}

	@Override
	public String nowPlusMillis() {
		return "(now() + CAST(? AS double precision) * interval '1 millisecond')";
	}

	@Override
	public String timestampParameter() {
		return "CAST(? AS timestamptz)";
	}

	@Override
	public String jsonParameter() {
		return "CAST(? AS jsonb)";
	}

	@Override
	public String insertIgnoringDuplicates() {
		// A unique violation would abort the caller's whole transaction on PostgreSQL.
		return " ON CONFLICT DO NOTHING";
	}

	/** One statement instead of one per job: PostgreSQL plans and runs it once for the whole batch. */
	@Override
	public String completeAll(String table) {
		return """
				UPDATE %s j SET status = 'SUCCEEDED', result = CAST(d.result AS jsonb),
				    last_error = COALESCE(d.note, j.last_error), finished_at = now(), updated_at = now(),
				    lease_expires_at = NULL, version = j.version + 1
				FROM unnest(CAST(? AS bigint[]), CAST(? AS bigint[]), CAST(? AS text[]), CAST(? AS text[]))
				    AS d(id, token, result, note)
				WHERE j.id = d.id AND j.lease_token = d.token AND j.status = 'RUNNING'
				RETURNING j.id""".formatted(table);
	}

	/** Autovacuum switched off for the server, or for the table by a storage parameter. */
	@Override
	public String unvacuumedQuery() {
		return """
				SELECT current_setting('autovacuum') = 'off'
				    OR EXISTS (SELECT 1 FROM pg_class WHERE oid = CAST(? AS regclass)
				               AND reloptions @> ARRAY['autovacuum_enabled=false'])""";
	}

	/**
	 * After five runs of one prepared statement PostgreSQL may switch to a generic plan, made
	 * for any value: for {@code queue = $1} it then reads the primary key backwards and
	 * filters (fine for a big queue, the whole table for one without jobs), and it can never
	 * use a partial index such as the ready or the running jobs'.
	 */
	@Override
	public String customPlansStatement() {
		return "SET LOCAL plan_cache_mode = force_custom_plan";
	}

	@Override
	public String vacuumStatement(String table) {
		return "VACUUM (ANALYZE) " + table;
	}

	@Override
	public String notifyStatement() {
		return "SELECT pg_notify(?, ?)";
	}

	@Override
	public ClaimMethod claimMethod() {
		return ClaimMethod.UPDATE_RETURNING;
	}

	@Override
	public String claimReturning(String table, String readyJobs, String claimedColumns) {
		return """
				WITH picked AS MATERIALIZED (
				    SELECT j.id FROM %1$s j
				    WHERE %2$s
				    ORDER BY j.priority DESC, j.run_at, j.id
				    LIMIT ?
				    FOR UPDATE SKIP LOCKED)
				UPDATE %1$s j SET %3$s
				FROM picked WHERE j.id = picked.id
				RETURNING j.*""".formatted(table, readyJobs, claimedColumns);
	}

}
