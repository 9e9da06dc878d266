package io.sqlqueue.test;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * A data source that can be cut off, as an instance is by a network partition or a
 * failover: while cut, every new connection is refused.
 */
public final class SwitchableDataSource extends DelegatingDataSource {

	private volatile boolean cut;

	private final AtomicInteger refusals = new AtomicInteger();

	public SwitchableDataSource(DataSource target) {
		super(target);
	}

	public void cut() {
		this.cut = true;
	}

	public void restore() {
		this.cut = false;
	}

	public int refusals() {
		return this.refusals.get();
	}

	@Override
	public Connection getConnection() throws SQLException {
		if (this.cut) {
			this.refusals.incrementAndGet();
			throw new SQLTransientConnectionException("Connection refused (cut off by the test)");
		}
		return super.getConnection();
	}

}
