package io.sqlqueue.store;

import java.sql.DatabaseMetaData;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.support.JdbcUtils;
import org.springframework.jdbc.support.MetaDataAccessException;

/**
 * Chooses the {@link Dialect} for a database, from its JDBC metadata or by name.
 */
public final class Dialects {

	private static final Map<String, Supplier<Dialect>> BY_NAME = Map.of("postgresql", PostgresDialect::new, "h2",
			H2Dialect::new);

	private Dialects() {
	}

	/** The dialect with this name ({@code postgresql}, {@code h2}). */
	public static Dialect named(String name) {
		Supplier<Dialect> dialect = BY_NAME.get(name.toLowerCase(Locale.ROOT));
		if (dialect == null) {
			throw new IllegalArgumentException("Unknown sqlqueue dialect '" + name + "'; supported: " + supported());
		}
		return dialect.get();
	}

	/** The dialect for the database behind this data source, detected from its product name. */
	public static Dialect detect(DataSource dataSource) {
		String product;
		try {
			product = JdbcUtils.extractDatabaseMetaData(dataSource, DatabaseMetaData::getDatabaseProductName);
		}
		catch (MetaDataAccessException ex) {
			throw new IllegalStateException("Could not read the database product name to choose a sqlqueue dialect",
					ex);
		}
		Dialect dialect = forProduct(product);
		if (dialect == null) {
			throw new IllegalStateException("sqlqueue does not support the database '" + product + "'; supported: "
					+ supported() + " (set sqlqueue.dialect to use one of them explicitly)");
		}
		return dialect;
	}

	static @Nullable Dialect forProduct(@Nullable String product) {
		String name = (product != null) ? product.toLowerCase(Locale.ROOT) : "";
		if (name.contains("postgresql")) {
			return new PostgresDialect();
		}
		if (name.equals("h2")) {
			return new H2Dialect();
		}
		return null;
	}

	private static String supported() {
		return "PostgreSQL 12+ (postgresql), H2 2.x (h2)";
	}

}
