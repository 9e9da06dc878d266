package io.sqlqueue.internal.store;

import javax.sql.DataSource;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * What the parts of one store share: one template on the queue's data source, one
 * transaction policy ({@link StoreTransactions}) and the database's {@link Dialect}. The
 * store builds it once and hands it to each part it assembles, so that no part reaches back
 * into the store for them.
 */
record StoreContext(JdbcTemplate jdbc, StoreTransactions transactions, Dialect dialect) {

	/** A context of its own on this data source, for a part built without a store around it. */
	static StoreContext on(DataSource dataSource, Dialect dialect) {
		return new StoreContext(jdbcTemplate(dataSource, dialect), new StoreTransactions(dataSource, dialect), dialect);
	}

	/**
	 * A template on the queue's data source that translates this database's errors as the
	 * store expects, a server that is no primary now first ({@link DemotedServers}).
	 */
	static JdbcTemplate jdbcTemplate(DataSource dataSource, Dialect dialect) {
		JdbcTemplate jdbc = new JdbcTemplate(dataSource);
		jdbc.setExceptionTranslator(
				new DemotedServers(dataSource, dialect.exceptionTranslator(jdbc.getExceptionTranslator())));
		return jdbc;
	}

}
