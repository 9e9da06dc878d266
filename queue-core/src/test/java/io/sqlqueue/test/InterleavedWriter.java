package io.sqlqueue.test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

/**
 * Another connection to a SQLite file that writes before each statement the connections of
 * a {@link #around wrapped} data source create, whenever the database lets it: the most
 * crowded schedule the queue's own loops and other instances could make. A transaction that
 * began with a read fails at its first write once this one has written (SQLITE_BUSY_SNAPSHOT,
 * at once); one that began with its write holds the lock, and this connection's writes give
 * up at once (busy timeout 0) until it ends.
 */
public final class InterleavedWriter implements AutoCloseable {

	private final Connection connection;

	private final AtomicInteger writes = new AtomicInteger();

	/** @param database a SQLite database ({@link TestDatabase#SQLITE}) */
	public InterleavedWriter(TestDatabase.Isolated database) {
		String url = database.url();
		try {
			this.connection = DriverManager.getConnection(url.substring(0, url.indexOf('?')) + "?busy_timeout=0");
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not open a second connection to " + url, ex);
		}
	}

	/** The writes that went in, each between two statements of the wrapped connections. */
	public int writes() {
		return this.writes.get();
	}

	/** {@code dataSource}, whose connections let this one write before each of their statements. */
	public DataSource around(DataSource dataSource) {
		return ConnectionHooks.before(dataSource, (call, args) -> {
			if (call.equals("prepareStatement") || call.equals("createStatement")) {
				write();
			}
		});
	}

	private synchronized void write() {
		try (Statement statement = this.connection.createStatement()) {
			// The file's header: no table of the queue's, yet every snapshot goes stale.
			statement.executeUpdate("PRAGMA user_version = " + (this.writes.get() + 1));
			this.writes.incrementAndGet();
		}
		catch (SQLException ex) {
			// SQLITE_BUSY: a transaction holds the write lock, so nothing can come between.
		}
	}

	@Override
	public void close() throws SQLException {
		this.connection.close();
	}

}
