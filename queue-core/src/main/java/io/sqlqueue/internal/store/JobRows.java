package io.sqlqueue.internal.store;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;

import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.RowMapper;

import io.sqlqueue.JobRecord;
import io.sqlqueue.JobStatus;

/**
 * Reads jobs from one result set, finding each column's index once, on the first row,
 * rather than by name on every row: claims read them a hundred at a time. One per query.
 */
final class JobRows implements RowMapper<JobRecord> {

	private static final String[] COLUMNS = { "id", "queue", "handler", "payload", "status", "priority", "run_at",
			"attempts", "max_attempts", "lease_owner", "lease_token", "lease_expires_at", "version", "unique_key",
			"group_key", "last_error", "result", "created_at", "updated_at", "started_at", "finished_at",
			"scheduled_for", "deadline", "cancel_requested_at", "crashes", "headers", "concurrency_key" };

	private final Dialect dialect;

	/** A candidate read by a claim: its {@code claimed_at} (the claim's time) becomes its start. */
	private final boolean candidate;

	private int @Nullable [] index;

	private int claimedAt;

	JobRows(Dialect dialect, boolean candidate) {
		this.dialect = dialect;
		this.candidate = candidate;
	}

	@Override
	public JobRecord mapRow(ResultSet rs, int row) throws SQLException {
		int[] i = this.index;
		if (i == null) {
			i = new int[COLUMNS.length];
			for (int column = 0; column < COLUMNS.length; column++) {
				i[column] = rs.findColumn(COLUMNS[column]);
			}
			this.index = i;
			this.claimedAt = this.candidate ? rs.findColumn("claimed_at") : 0;
		}
		long leaseToken = rs.getLong(i[10]);
		Long token = rs.wasNull() ? null : leaseToken;
		Instant startedAt = this.candidate ? this.dialect.getTimestamp(rs, this.claimedAt)
				: this.dialect.getTimestamp(rs, i[19]);
		return new JobRecord(rs.getLong(i[0]), rs.getString(i[1]), rs.getString(i[2]), rs.getString(i[3]),
				JobStatus.valueOf(rs.getString(i[4])), rs.getInt(i[5]), required(rs, i[6], "run_at"), rs.getInt(i[7]),
				rs.getInt(i[8]), rs.getString(i[9]), token, this.dialect.getTimestamp(rs, i[11]), rs.getLong(i[12]),
				rs.getString(i[13]), rs.getString(i[14]), rs.getString(i[15]), rs.getString(i[16]),
				required(rs, i[17], "created_at"), required(rs, i[18], "updated_at"), startedAt,
				this.dialect.getTimestamp(rs, i[20]), this.dialect.getTimestamp(rs, i[21]),
				this.dialect.getTimestamp(rs, i[22]), this.dialect.getTimestamp(rs, i[23]), rs.getInt(i[24]),
				rs.getString(i[25]), rs.getString(i[26]));
	}

	private Instant required(ResultSet rs, int column, String name) throws SQLException {
		Instant value = this.dialect.getTimestamp(rs, column);
		if (value == null) {
			throw new IllegalStateException("Column " + name + " is null");
		}
		return value;
	}

}
