package io.sqlqueue.internal.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.JdbcTemplate;

import io.sqlqueue.DuplicateJobException;

/**
 * The insert of new jobs, in the transaction the store opened or joined: one statement
 * where the dialect has one for many rows (arrays on PostgreSQL; a multi-row
 * {@code INSERT … RETURNING} per chunk on MariaDB), else a JDBC batch, else row by row; a taken
 * unique key inserts nothing and throws. The jobs' labels ({@link JobLabels}) in the same transaction.
 */
final class JobInserts {

	/** The parameters of one job's row ({@link JobSql#insert}). */
	private static final int INSERT_PARAMETERS = 14;

	/** The arrays' types of {@link Dialect#insertAll}, in parameter order. */
	private static final String[] ALL_TYPES = { "text", "text", "text", "int4", "text", "int8", "int4", "text", "text",
			"text", "text", "int8", "text", "text" };

	/** The arrays' types of {@link Dialect#insertAllBare}, in parameter order. */
	private static final String[] BARE_TYPES = { "text", "text", "text", "int4", "int4" };

	private final JdbcTemplate jdbc;

	private final JobSql sql;

	private final Dialect dialect;

	private final @Nullable WorkAnnouncer announcer;

	private final JobLabels labels;

	JobInserts(JdbcTemplate jdbc, JobSql sql, Dialect dialect, @Nullable WorkAnnouncer announcer, JobLabels labels) {
		this.labels = labels;
		this.jdbc = jdbc;
		this.sql = sql;
		this.dialect = dialect;
		this.announcer = announcer;
	}

	/**
	 * Inserts the jobs in the current transaction and returns their ids, in job order; their
	 * queues are announced once it commits ({@link WorkAnnouncer}).
	 */
	List<Long> insert(List<NewJob> jobs) {
		try {
			List<Long> ids = this.jdbc.execute((Connection connection) -> insertBatch(connection, jobs));
			if (jobs.stream().anyMatch(NewJob::labelled)) {
				this.labels.insert(ids, jobs);
			}
			if (this.announcer != null) {
				this.announcer.afterCommit(jobs.stream().map(NewJob::queue).distinct().toList());
			}
			return ids;
		}
		catch (DuplicateKeyException ex) {
			throw new DuplicateJobException(duplicateKeyOf(jobs));
		}
	}

	/**
	 * All jobs in one statement: {@link Dialect#insertAllBare} when they are all bare, else
	 * {@link Dialect#insertAll}; a taken unique key inserts fewer, and throws.
	 */
	private List<Long> insertInOneStatement(Connection connection, List<NewJob> jobs, boolean bare)
			throws SQLException {
		String[] types = bare ? BARE_TYPES : ALL_TYPES;
		Object[][] columns = new Object[types.length][jobs.size()];
		for (int i = 0; i < jobs.size(); i++) {
			Object[] row = bare ? bareRow(jobs.get(i)) : fullRow(jobs.get(i));
			for (int column = 0; column < types.length; column++) {
				columns[column][i] = row[column];
			}
		}
		String statement = Objects.requireNonNull(bare ? this.sql.insertAllBare : this.sql.insertAll);
		List<Long> ids = new ArrayList<>(jobs.size());
		try (PreparedStatement ps = connection.prepareStatement(statement)) {
			for (int column = 0; column < types.length; column++) {
				ps.setArray(column + 1, connection.createArrayOf(types[column], columns[column]));
			}
			try (ResultSet rs = ps.executeQuery()) {
				while (rs.next()) {
					ids.add(rs.getLong(1));
				}
			}
		}
		if (ids.size() != jobs.size()) {
			throw new DuplicateJobException(duplicateKeyOf(jobs));
		}
		// Identity values are taken in the order the rows are inserted, which is job order.
		ids.sort(null);
		return ids;
	}

	/** The job's elements of {@link Dialect#insertAllBare}'s arrays. */
	private static Object[] bareRow(NewJob job) {
		return new Object[] { job.queue(), job.handler(), job.payload(), job.priority(), job.maxAttempts() };
	}

	/** The job's elements of {@link Dialect#insertAll}'s arrays. */
	private static Object[] fullRow(NewJob job) {
		return new Object[] { job.queue(), job.handler(), job.payload(), job.priority(), text(job.runAt()),
				job.delayMillis(), job.maxAttempts(), job.uniqueKey(), job.groupKey(), text(job.scheduledFor()),
				text(job.deadline()), job.expireAfterMillis(), job.headers(), job.concurrencyKey() };
	}

	private static @Nullable String text(@Nullable Instant instant) {
		return (instant != null) ? instant.toString() : null;
	}

	/**
	 * The jobs with one multi-row insert per chunk ({@link RowChunks}) that returns their ids
	 * ({@link Dialect#insertReturningIds}): a taken unique key fails the chunk's statement, and
	 * throws, as a batch's single-row insert did.
	 */
	private List<Long> insertInChunks(Connection connection, List<NewJob> jobs) throws SQLException {
		List<Long> ids = new ArrayList<>(jobs.size());
		for (List<NewJob> chunk : RowChunks.of(jobs, JobInserts::boundText)) {
			List<Long> inserted = new ArrayList<>(chunk.size());
			String statement = Objects.requireNonNull(this.sql.insertRows(chunk.size()));
			try (PreparedStatement ps = connection.prepareStatement(statement)) {
				for (int i = 0; i < chunk.size(); i++) {
					bindInsert(ps, i * INSERT_PARAMETERS, chunk.get(i));
				}
				try (ResultSet rs = ps.executeQuery()) {
					while (rs.next()) {
						inserted.add(rs.getLong(1));
					}
				}
			}
			if (inserted.size() != chunk.size()) {
				throw new DuplicateJobException(duplicateKeyOf(chunk));
			}
			// Ids grow in the order the rows are written, which is the order of the VALUES list.
			inserted.sort(null);
			ids.addAll(inserted);
		}
		return ids;
	}

	private static int boundText(NewJob job) {
		return RowChunks.length(job.queue()) + RowChunks.length(job.handler()) + RowChunks.length(job.payload())
				+ RowChunks.length(job.uniqueKey()) + RowChunks.length(job.groupKey())
				+ RowChunks.length(job.headers()) + RowChunks.length(job.concurrencyKey());
	}

	private List<Long> insertBatch(Connection connection, List<NewJob> jobs) throws SQLException {
		if (this.sql.insertAll != null && jobs.size() > 1) {
			boolean bare = this.sql.insertAllBare != null && jobs.stream().allMatch(NewJob::bare);
			return insertInOneStatement(connection, jobs, bare);
		}
		if (this.dialect.insertReturningIds() != null && jobs.size() > 1) {
			return insertInChunks(connection, jobs);
		}
		try (PreparedStatement statement = connection.prepareStatement(this.sql.insert, new String[] { "id" })) {
			if (!this.dialect.batchReturnsGeneratedKeys()) {
				return insertOneByOne(statement, jobs);
			}
			for (NewJob job : jobs) {
				bindInsert(statement, job);
				statement.addBatch();
			}
			int[] counts = statement.executeBatch();
			for (int i = 0; i < counts.length; i++) {
				if (counts[i] == 0) {
					throw new DuplicateJobException(String.valueOf(jobs.get(i).uniqueKey()));
				}
			}
			List<Long> ids = new ArrayList<>(jobs.size());
			try (ResultSet keys = statement.getGeneratedKeys()) {
				while (keys.next()) {
					ids.add(keys.getLong(1));
				}
			}
			if (ids.size() != jobs.size()) {
				throw new IllegalStateException("Inserted " + jobs.size() + " jobs but got " + ids.size() + " ids");
			}
			return ids;
		}
	}

	/** For drivers that return no keys for a batch (SQLite's: it reads {@code last_insert_rowid()}). */
	private List<Long> insertOneByOne(PreparedStatement statement, List<NewJob> jobs) throws SQLException {
		List<Long> ids = new ArrayList<>(jobs.size());
		for (NewJob job : jobs) {
			bindInsert(statement, job);
			if (statement.executeUpdate() == 0) {
				throw new DuplicateJobException(String.valueOf(job.uniqueKey()));
			}
			try (ResultSet keys = statement.getGeneratedKeys()) {
				if (!keys.next()) {
					throw new IllegalStateException("Inserted a job but got no id");
				}
				ids.add(keys.getLong(1));
			}
		}
		return ids;
	}

	private void bindInsert(PreparedStatement statement, NewJob job) throws SQLException {
		bindInsert(statement, 0, job);
	}

	/** Binds the job's {@link #INSERT_PARAMETERS} parameters after the first {@code before}. */
	private void bindInsert(PreparedStatement statement, int before, NewJob job) throws SQLException {
		statement.setString(before + 1, job.queue());
		statement.setString(before + 2, job.handler());
		statement.setString(before + 3, job.payload());
		statement.setInt(before + 4, job.priority());
		this.dialect.setTimestamp(statement, before + 5, job.runAt());
		statement.setLong(before + 6, job.delayMillis());
		statement.setInt(before + 7, job.maxAttempts());
		statement.setString(before + 8, job.uniqueKey());
		statement.setString(before + 9, job.groupKey());
		this.dialect.setTimestamp(statement, before + 10, job.scheduledFor());
		this.dialect.setTimestamp(statement, before + 11, job.deadline());
		if (job.expireAfterMillis() != null) {
			statement.setLong(before + 12, job.expireAfterMillis());
		}
		else {
			statement.setNull(before + 12, Types.BIGINT);
		}
		statement.setString(before + 13, job.headers());
		statement.setString(before + 14, job.concurrencyKey());
	}

	private static String duplicateKeyOf(List<NewJob> jobs) {
		return jobs.stream().map(NewJob::uniqueKey).filter((key) -> key != null).findFirst().orElse("?");
	}

}
