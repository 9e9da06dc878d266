package io.sqlqueue.benchmark;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

/**
 * The floor: the smallest correct SKIP LOCKED queue a blog post would write, with none of
 * sqlqueue's promises (no leases, fencing, retries, priorities, groups, keys, results).
 * Workers threads each claim up to {@code batch} jobs in one statement, run them, and mark
 * them done in one statement. On PostgreSQL the claim is
 * {@code UPDATE … WHERE id IN (SELECT … FOR UPDATE SKIP LOCKED LIMIT ?) RETURNING}; on
 * MariaDB (no {@code RETURNING} on {@code UPDATE}) a locking read and an update in one READ
 * COMMITTED transaction.
 */
final class FloorQueue implements Peer {

	private static final int ENQUEUE_BATCH = 500;

	private final Target target;

	private final int batch;

	private final int workers;

	private final HikariDataSource dataSource;

	private final AtomicBoolean running = new AtomicBoolean();

	private final List<Thread> threads = new ArrayList<>();

	FloorQueue(Target target, int batch, int workers) {
		this(target, batch, workers, 0);
	}

	/** A floor whose pool also serves {@code producers} threads enqueuing at once. */
	FloorQueue(Target target, int batch, int workers, int producers) {
		this.target = target;
		this.batch = batch;
		this.workers = workers;
		this.dataSource = pool(target, applicationName(), workers + producers + 2);
		createTable();
	}

	static HikariDataSource pool(Target target, String applicationName, int size) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(target.url());
		config.setUsername(target.user());
		config.setPassword(target.password());
		config.setMaximumPoolSize(size);
		config.setMinimumIdle(size);
		if (target.isPostgres()) {
			config.addDataSourceProperty("ApplicationName", applicationName);
			if (target.schema() != null) {
				config.setSchema(target.schema());
			}
		}
		return new HikariDataSource(config);
	}

	@Override
	public String name() {
		return "floor, batch " + this.batch;
	}

	@Override
	public int comparedBatch() {
		return this.batch;
	}

	@Override
	public String applicationName() {
		return "bench-floor-" + this.batch;
	}

	private void createTable() {
		if (this.target.isPostgres()) {
			this.target.jdbc().execute("DROP TABLE IF EXISTS " + table());
			this.target.jdbc().execute("CREATE TABLE " + table() + " (id bigserial PRIMARY KEY, payload jsonb NOT NULL, "
					+ "status smallint NOT NULL DEFAULT 0, locked_at timestamptz)");
			this.target.jdbc().execute("CREATE INDEX floor_job_ready ON " + table() + " (id) WHERE status = 0");
		}
		else {
			this.target.jdbc().execute("DROP TABLE IF EXISTS floor_job");
			this.target.jdbc().execute("CREATE TABLE floor_job (id BIGINT AUTO_INCREMENT PRIMARY KEY, "
					+ "payload LONGTEXT NOT NULL, status TINYINT NOT NULL DEFAULT 0, locked_at DATETIME(6), "
					+ "INDEX floor_job_ready (status, id)) ENGINE = InnoDB");
		}
	}

	String table() {
		return (this.target.schema() != null) ? "\"" + this.target.schema() + "\".floor_job" : "floor_job";
	}

	@Override
	public void enqueue(int jobs) {
		enqueue(0, jobs);
	}

	/** Enqueues one job in its own transaction, as a web request does. */
	void enqueueOne(int job) {
		try (Connection connection = this.dataSource.getConnection();
				PreparedStatement statement = connection.prepareStatement(insert())) {
			connection.setAutoCommit(true);
			statement.setString(1, Integer.toString(job));
			statement.executeUpdate();
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

	/** Stops the workers; jobs they claimed stay claimed. */
	void stopWorkers() {
		this.running.set(false);
		for (Thread thread : this.threads) {
			try {
				thread.join(10_000);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
	}

	private String insert() {
		return "INSERT INTO " + table() + " (payload) VALUES (" + (this.target.isPostgres() ? "CAST(? AS jsonb)" : "?")
				+ ")";
	}

	/** Enqueues jobs numbered {@code first} to {@code first + jobs - 1}, 500 a transaction. */
	void enqueue(int first, int jobs) {
		try (Connection connection = this.dataSource.getConnection();
				PreparedStatement statement = connection.prepareStatement(insert())) {
			connection.setAutoCommit(false);
			for (int i = 0; i < jobs; i++) {
				statement.setString(1, Integer.toString(first + i));
				statement.addBatch();
				if ((i + 1) % ENQUEUE_BATCH == 0 || i == jobs - 1) {
					statement.executeBatch();
					connection.commit();
				}
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

	@Override
	public void startWorkers() {
		this.running.set(true);
		for (int i = 0; i < this.workers; i++) {
			Thread thread = new Thread(this::work, "floor-worker-" + i);
			thread.start();
			this.threads.add(thread);
		}
	}

	private void work() {
		try (Connection connection = this.dataSource.getConnection()) {
			while (this.running.get()) {
				List<long[]> claimed = this.target.isPostgres() ? claimPostgres(connection) : claimMariaDb(connection);
				if (claimed.isEmpty()) {
					Thread.sleep(10);
					continue;
				}
				Long[] ids = new Long[claimed.size()];
				for (int i = 0; i < ids.length; i++) {
					Executions.current.ran((int) claimed.get(i)[1]);
					ids[i] = claimed.get(i)[0];
				}
				complete(connection, ids);
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private List<long[]> claimPostgres(Connection connection) throws SQLException {
		connection.setAutoCommit(true);
		try (PreparedStatement claim = connection.prepareStatement("UPDATE " + table()
				+ " SET status = 1, locked_at = now() WHERE id IN (SELECT id FROM " + table()
				+ " WHERE status = 0 ORDER BY id LIMIT ? FOR UPDATE SKIP LOCKED) RETURNING id, payload")) {
			claim.setInt(1, this.batch);
			return read(claim);
		}
	}

	private List<long[]> claimMariaDb(Connection connection) throws SQLException {
		connection.setAutoCommit(false);
		connection.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
		List<long[]> claimed;
		try (PreparedStatement lock = connection.prepareStatement(
				"SELECT id, payload FROM floor_job WHERE status = 0 ORDER BY id LIMIT ? FOR UPDATE SKIP LOCKED")) {
			lock.setInt(1, this.batch);
			claimed = read(lock);
		}
		if (!claimed.isEmpty()) {
			try (Statement update = connection.createStatement()) {
				update.executeUpdate("UPDATE floor_job SET status = 1, locked_at = UTC_TIMESTAMP(6) WHERE id IN ("
						+ ids(claimed) + ")");
			}
		}
		connection.commit();
		return claimed;
	}

	private static List<long[]> read(PreparedStatement statement) throws SQLException {
		List<long[]> rows = new ArrayList<>();
		try (ResultSet rs = statement.executeQuery()) {
			while (rs.next()) {
				rows.add(new long[] { rs.getLong(1), Long.parseLong(rs.getString(2).trim()) });
			}
		}
		return rows;
	}

	private void complete(Connection connection, Long[] ids) throws SQLException {
		if (this.target.isPostgres()) {
			try (PreparedStatement done = connection
				.prepareStatement("UPDATE " + table() + " SET status = 2 WHERE id = ANY(?)")) {
				Array array = connection.createArrayOf("bigint", ids);
				done.setArray(1, array);
				done.executeUpdate();
			}
		}
		else {
			List<long[]> rows = new ArrayList<>();
			for (Long id : ids) {
				rows.add(new long[] { id });
			}
			try (Statement done = connection.createStatement()) {
				done.executeUpdate("UPDATE floor_job SET status = 2 WHERE id IN (" + ids(rows) + ")");
			}
			connection.commit();
		}
	}

	private static String ids(List<long[]> rows) {
		List<String> ids = new ArrayList<>(rows.size());
		rows.forEach((row) -> ids.add(Long.toString(row[0])));
		return String.join(",", ids);
	}

	@Override
	public boolean allDone(int jobs) {
		Long done = this.target.jdbc()
			.queryForObject("SELECT COUNT(*) FROM " + table() + " WHERE status = 2", Long.class);
		return done != null && done == jobs;
	}

	@Override
	public void close() {
		stopWorkers();
		this.dataSource.close();
		this.target.jdbc().execute("DROP TABLE IF EXISTS " + table());
	}

}
