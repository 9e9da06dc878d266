package io.sqlqueue.internal.store.dialect;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;

import io.sqlqueue.internal.store.Dialect;
import io.sqlqueue.internal.store.h2.H2Dialect;
import io.sqlqueue.internal.store.mariadb.MariaDbDialect;
import io.sqlqueue.internal.store.postgresql.PostgresDialect;
import io.sqlqueue.internal.store.sqlite.SqliteDialect;

/**
 * Chooses the {@link Dialect} for a database, from its JDBC metadata or by name, and
 * checks at start-up that the database can run the queue ({@link Dialect#checkDatabase}).
 */
public final class Dialects {

	private static final Map<String, Supplier<Dialect>> BY_NAME = byName();

	private static final String SUPPORTED = "PostgreSQL 12+ (postgresql), MariaDB 10.6+ and MySQL 8.0.1+ (mariadb), "
			+ "H2 2.x (h2), SQLite 3.35+ (sqlite)";

	private Dialects() {
	}

	private static Map<String, Supplier<Dialect>> byName() {
		Map<String, Supplier<Dialect>> byName = new LinkedHashMap<>();
		byName.put("postgresql", PostgresDialect::new);
		byName.put("mariadb", MariaDbDialect::new);
		byName.put("h2", H2Dialect::new);
		byName.put("sqlite", SqliteDialect::new);
		return Map.copyOf(byName);
	}

	/** The dialect with this name ({@code postgresql}, {@code mariadb}, {@code h2}, {@code sqlite}). */
	public static Dialect named(String name) {
		Supplier<Dialect> dialect = BY_NAME.get(name.toLowerCase(Locale.ROOT));
		if (dialect == null) {
			throw new IllegalArgumentException("Unknown sqlqueue dialect '" + name + "'; supported: " + SUPPORTED);
		}
		return dialect.get();
	}

	/**
	 * The dialect for the database behind this data source, detected from its product
	 * name and fitted to the server ({@link Dialect#fittedTo}), after checking that the database can run the queue (its version, and for
	 * SQLite its journal mode and busy timeout).
	 * @throws IllegalStateException for a database sqlqueue does not support, naming those it does
	 */
	public static Dialect detect(DataSource dataSource) {
		try (Connection connection = dataSource.getConnection()) {
			DatabaseMetaData metaData = connection.getMetaData();
			String product = metaData.getDatabaseProductName();
			Dialect dialect = forProduct(product);
			if (dialect == null) {
				throw new IllegalStateException("sqlqueue does not support the database '" + product + " "
						+ metaData.getDatabaseProductVersion() + "'; supported: " + SUPPORTED
						+ " (set sqlqueue.jdbc.dialect to use one of them explicitly, "
						+ "and sqlqueue.jdbc.claim-method=compare-and-set where SKIP LOCKED is missing)");
			}
			dialect.checkDatabase(metaData);
			return dialect.fittedTo(metaData);
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not read the database's metadata to choose a sqlqueue dialect", ex);
		}
	}

	/**
	 * Runs the start-up check of a dialect chosen by name ({@link Dialect#checkDatabase});
	 * returns it fitted to the server ({@link Dialect#fittedTo}), the one to use.
	 */
	public static Dialect check(Dialect dialect, DataSource dataSource) {
		try (Connection connection = dataSource.getConnection()) {
			DatabaseMetaData metaData = connection.getMetaData();
			dialect.checkDatabase(metaData);
			return dialect.fittedTo(metaData);
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not check the database for sqlqueue dialect " + dialect, ex);
		}
	}

	static @Nullable Dialect forProduct(@Nullable String product) {
		String name = (product != null) ? product.toLowerCase(Locale.ROOT) : "";
		if (name.contains("postgresql")) {
			return new PostgresDialect();
		}
		if (name.contains("mariadb") || name.contains("mysql")) {
			return new MariaDbDialect();
		}
		if (name.equals("h2")) {
			return new H2Dialect();
		}
		if (name.equals("sqlite")) {
			return new SqliteDialect();
		}
		return null;
	}

}
