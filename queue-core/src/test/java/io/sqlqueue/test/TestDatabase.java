package io.sqlqueue.test;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.Locale;
import java.util.UUID;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

import io.sqlqueue.store.Dialect;
import io.sqlqueue.store.H2Dialect;
import io.sqlqueue.store.PostgresDialect;

/**
 * A database for tests, isolated per test class: H2 gets a new in-memory database,
 * servers get a new schema. Servers are the local ones (URLs overridable by environment
 * variables); where none answers and Docker is present, Testcontainers starts one; where
 * neither, the test is skipped, unless {@code SQLQUEUE_TEST_REQUIRE_DATABASES} names the
 * database, in which case it fails.
 */
public enum TestDatabase {

	H2(null, null, null) {
		@Override
		Dialect dialect() {
			return new H2Dialect();
		}

		@Override
		Isolated create() {
			String url = "jdbc:h2:mem:sq_" + UUID.randomUUID().toString().replace("-", "")
					+ ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000";
			return new Isolated(this, url, "sa", "", null);
		}
	},

	POSTGRESQL("SQLQUEUE_TEST_POSTGRES_URL", "jdbc:postgresql://127.0.0.1:5432/test", "postgres") {
		@Override
		Dialect dialect() {
			return new PostgresDialect();
		}

		@Override
		ServerAddress startContainer() {
			return Containers.postgres();
		}
	};

	private final @Nullable String urlVariable;

	private final @Nullable String defaultUrl;

	private final @Nullable String defaultUser;

	private @Nullable ServerAddress server;

	TestDatabase(@Nullable String urlVariable, @Nullable String defaultUrl, @Nullable String defaultUser) {
		this.urlVariable = urlVariable;
		this.defaultUrl = defaultUrl;
		this.defaultUser = defaultUser;
	}

	abstract Dialect dialect();

	ServerAddress startContainer() {
		throw new UnsupportedOperationException();
	}

	/** A fresh, empty place for one test class; close it to drop it. */
	public Isolated isolated() {
		return create();
	}

	Isolated create() {
		ServerAddress address = server();
		String schema = "sq_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
		try (Connection connection = java.sql.DriverManager.getConnection(address.url(), address.user(),
				address.password())) {
			connection.createStatement().execute("CREATE SCHEMA " + schema);
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not create test schema " + schema, ex);
		}
		return new Isolated(this, address.url(), address.user(), address.password(), schema);
	}

	private synchronized ServerAddress server() {
		if (this.server != null) {
			return this.server;
		}
		String url = System.getenv().getOrDefault(this.urlVariable, this.defaultUrl);
		String user = System.getenv().getOrDefault(this.urlVariable + "_USER", this.defaultUser);
		String password = System.getenv().getOrDefault(this.urlVariable + "_PASSWORD", "");
		SQLException failure;
		try (Connection connection = java.sql.DriverManager.getConnection(url, user, password)) {
			this.server = new ServerAddress(url, user, password);
			return this.server;
		}
		catch (SQLException ex) {
			failure = ex;
		}
		if (Containers.dockerAvailable()) {
			this.server = startContainer();
			return this.server;
		}
		String message = name() + " is not reachable at " + url + " (" + failure.getMessage()
				+ ") and Docker is not available. Start a server there, or point " + this.urlVariable
				+ " at one, to run these tests.";
		if (isRequired()) {
			Assertions.fail(message + " SQLQUEUE_TEST_REQUIRE_DATABASES requires it.", failure);
		}
		Assumptions.abort(message);
		throw new IllegalStateException("unreachable");
	}

	private boolean isRequired() {
		String required = System.getenv().getOrDefault("SQLQUEUE_TEST_REQUIRE_DATABASES", "");
		return Arrays.stream(required.split(","))
			.map((name) -> name.trim().toLowerCase(Locale.ROOT))
			.anyMatch((name) -> name.equals(name().toLowerCase(Locale.ROOT)) || name.equals("all"));
	}

	record ServerAddress(String url, String user, String password) {
	}

	/** One test class's database (or schema) and a pool of connections to it. */
	public static final class Isolated implements AutoCloseable {

		private final TestDatabase database;

		private final String url;

		private final String user;

		private final String password;

		private final @Nullable String schema;

		private final HikariDataSource dataSource;

		Isolated(TestDatabase database, String url, String user, String password, @Nullable String schema) {
			this.database = database;
			this.url = url;
			this.user = user;
			this.password = password;
			this.schema = schema;
			this.dataSource = newDataSource(40);
		}

		/** Another pool on the same database: a second application instance. */
		public HikariDataSource newDataSource(int size) {
			HikariConfig config = new HikariConfig();
			config.setJdbcUrl(this.url);
			config.setUsername(this.user);
			config.setPassword(this.password);
			config.setMaximumPoolSize(size);
			config.setMinimumIdle(0);
			if (this.schema != null) {
				config.setSchema(this.schema);
			}
			return new HikariDataSource(config);
		}

		public DataSource dataSource() {
			return this.dataSource;
		}

		public Dialect dialect() {
			return this.database.dialect();
		}

		public TestDatabase database() {
			return this.database;
		}

		public @Nullable String schema() {
			return this.schema;
		}

		@Override
		public void close() {
			try (Connection connection = this.dataSource.getConnection()) {
				if (this.schema != null) {
					connection.createStatement().execute("DROP SCHEMA " + this.schema + " CASCADE");
				}
				else {
					connection.createStatement().execute("SHUTDOWN");
				}
			}
			catch (SQLException ex) {
				// Best effort: the next run uses a new name anyway.
			}
			finally {
				this.dataSource.close();
			}
		}

	}

}
