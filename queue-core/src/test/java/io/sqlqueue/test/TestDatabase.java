package io.sqlqueue.test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.Locale;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

import io.sqlqueue.internal.store.Dialect;
import io.sqlqueue.internal.store.h2.H2Dialect;
import io.sqlqueue.internal.store.mariadb.MariaDbDialect;
import io.sqlqueue.internal.store.postgresql.PostgresDialect;
import io.sqlqueue.internal.store.sqlite.SqliteDialect;

/**
 * A database for tests, isolated per test: H2 gets a new in-memory database, SQLite a new
 * temporary file, PostgreSQL a new schema, MariaDB and MySQL a new database. Servers, in
 * this order: the URL of the environment variable ({@code …_USER} and {@code …_PASSWORD}
 * beside it; set, it must answer), else the local default; where none answers,
 * Testcontainers if Docker is there;
 * else, for PostgreSQL and MariaDB, a server from Maven ({@link EmbeddedServers}, also forced
 * by {@code SQLQUEUE_TEST_DATABASES=embedded}). So PostgreSQL and MariaDB tests always run:
 * one that cannot is an error, unless {@code SQLQUEUE_TEST_ALLOW_SKIP} names the database.
 * MySQL 8 has no server from Maven: its tests are skipped where none answers, unless
 * {@code SQLQUEUE_TEST_REQUIRE_DATABASES} names it (e.g. {@code mysql}, or {@code all}).
 */
public enum TestDatabase {

	H2(null, null, null) {
		@Override
		public Dialect dialect() {
			return new H2Dialect();
		}

		@Override
		Isolated create() {
			String url = "jdbc:h2:mem:sq_" + UUID.randomUUID().toString().replace("-", "")
					+ ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000";
			return new Isolated(this, url, "sa", "", null);
		}

		@Override
		void drop(Isolated database, Statement statement) throws SQLException {
			statement.execute("SHUTDOWN");
		}
	},

	/** A temporary file, deleted with its WAL files; the queue switches it to WAL at start-up. */
	SQLITE(null, null, null) {
		@Override
		public Dialect dialect() {
			return new SqliteDialect();
		}

		@Override
		Isolated create() {
			try {
				Path file = Files.createTempFile("sqlqueue-", ".db");
				// Busy timeout: a writer waits for the one ahead of it (see SqliteDialect).
				return new Isolated(this, "jdbc:sqlite:" + file + "?busy_timeout=10000", "", "", null);
			}
			catch (IOException ex) {
				throw new IllegalStateException("Could not create a SQLite file", ex);
			}
		}

		@Override
		void drop(Isolated database, Statement statement) {
		}

		@Override
		void deleteFiles(Isolated database) {
			String file = database.url().substring("jdbc:sqlite:".length(), database.url().indexOf('?'));
			for (String suffix : new String[] { "", "-wal", "-shm" }) {
				try {
					Files.deleteIfExists(Path.of(file + suffix));
				}
				catch (IOException ex) {
					// Best effort: it is a temporary file.
				}
			}
		}
	},

	POSTGRESQL("SQLQUEUE_TEST_POSTGRES_URL", "jdbc:postgresql://127.0.0.1:5432/test", "postgres") {
		@Override
		public Dialect dialect() {
			return new PostgresDialect();
		}

		@Override
		ServerAddress startContainer() {
			return Containers.postgres();
		}

		@Override
		ServerAddress startEmbedded() {
			return EmbeddedServers.postgres();
		}
	},

	/** MariaDB; each test gets its own database (a MariaDB "schema"). */
	MARIADB("SQLQUEUE_TEST_MARIADB_URL", "jdbc:mariadb://127.0.0.1:3306/test", "root", true) {
		@Override
		public Dialect dialect() {
			return MariaDbDialect.forMariaDb();
		}

		@Override
		ServerAddress startContainer() {
			return Containers.mariadb();
		}

		@Override
		ServerAddress startEmbedded() {
			return EmbeddedServers.mariadb();
		}
	},

	/**
	 * A three-node MariaDB Galera cluster where every node takes writes ({@code .ci/galera start}:
	 * nodes on 13306, 13307 and 13308, or those {@code SQLQUEUE_TEST_GALERA_NODES} lists as
	 * {@code host:port,…}). The test's database is made on the first node (and replicated); its
	 * pools go round the nodes: {@link Isolated#dataSource()} on the first, each
	 * {@link Isolated#newDataSource} on the next, so that "another instance" is another node;
	 * each reads what every node committed before ({@code wsrep_sync_wait=1}).
	 * Skipped where the cluster does not answer, unless {@code SQLQUEUE_TEST_REQUIRE_DATABASES}
	 * names {@code galera}.
	 */
	GALERA("SQLQUEUE_TEST_GALERA_URL", "jdbc:mariadb://127.0.0.1:13306/test", "root", true) {
		@Override
		public Dialect dialect() {
			return MariaDbDialect.forMariaDb();
		}
	},

	/**
	 * MySQL 8, through the MariaDB driver like MariaDB: no local server is expected (the
	 * default URL is port 3307), so this runs where Docker is or the variable points at one.
	 */
	MYSQL("SQLQUEUE_TEST_MYSQL_URL", "jdbc:mariadb://127.0.0.1:3307/test?allowPublicKeyRetrieval=true", "root",
			true) {
		@Override
		public Dialect dialect() {
			return new MariaDbDialect();
		}

		@Override
		ServerAddress startContainer() {
			return Containers.mysql();
		}
	};

	/**
	 * A JUnit resource lock per server: the integration tests of one server run one class at a
	 * time, those of different servers side by side (queue-core's Failsafe runs two classes at
	 * once). Some tests read or hold what is server-wide, not per schema: the horizon and the
	 * sessions that hold it, the vacuum's view of it, a server restart.
	 */
	public static final String POSTGRESQL_SERVER = "sqlqueue.server.postgresql";

	/** As {@link #POSTGRESQL_SERVER}, for MariaDB. */
	public static final String MARIADB_SERVER = "sqlqueue.server.mariadb";

	/** As {@link #POSTGRESQL_SERVER}, for the Galera cluster. */
	public static final String GALERA_SERVER = "sqlqueue.server.galera";

	/** As {@link #POSTGRESQL_SERVER}, for MySQL. */
	public static final String MYSQL_SERVER = "sqlqueue.server.mysql";

	private static final Pattern DATABASE_IN_URL = Pattern.compile("^(jdbc:[a-z]+://[^/]+/)([^?]*)(.*)$");

	private final @Nullable String urlVariable;

	private final @Nullable String defaultUrl;

	private final @Nullable String defaultUser;

	/** MariaDB and MySQL: a database per test, which is their schema. */
	private final boolean databasePerTest;

	private @Nullable ServerAddress server;

	TestDatabase(@Nullable String urlVariable, @Nullable String defaultUrl, @Nullable String defaultUser) {
		this(urlVariable, defaultUrl, defaultUser, false);
	}

	TestDatabase(@Nullable String urlVariable, @Nullable String defaultUrl, @Nullable String defaultUser,
			boolean databasePerTest) {
		this.urlVariable = urlVariable;
		this.defaultUrl = defaultUrl;
		this.defaultUser = defaultUser;
		this.databasePerTest = databasePerTest;
	}

	/** The dialect the queue uses on this database. */
	public abstract Dialect dialect();

	ServerAddress startContainer() {
		throw new UnsupportedOperationException();
	}

	/** A server from Maven (PostgreSQL and MariaDB only). */
	ServerAddress startEmbedded() {
		throw new UnsupportedOperationException();
	}

	/** A fresh, empty place for one test; close it to drop it. */
	public Isolated isolated() {
		return create();
	}

	/** A new schema (or database) on the server; the queue's table goes there. */
	Isolated create() {
		if (this.databasePerTest) {
			return createDatabase(this);
		}
		ServerAddress address = server();
		String schema = newName();
		execute(address.url(), address, "CREATE SCHEMA " + schema);
		return new Isolated(this, address.url(), address.user(), address.password(), schema);
	}

	/** Drops what {@link #create()} made, on a connection of its own pool. */
	void drop(Isolated database, Statement statement) throws SQLException {
		statement.execute(this.databasePerTest ? "DROP DATABASE IF EXISTS " + database.schema()
				: "DROP SCHEMA " + database.schema() + " CASCADE");
	}

	void deleteFiles(Isolated database) {
	}

	/**
	 * MariaDB and MySQL: a new database, which is their schema; the pool connects to it (so
	 * the tests' own tables land there too) and the queue names it as its schema.
	 */
	private static Isolated createDatabase(TestDatabase database) {
		ServerAddress address = database.server();
		String name = newName();
		execute(address.url(), address, "CREATE DATABASE " + name);
		Matcher url = DATABASE_IN_URL.matcher(address.url());
		if (!url.matches()) {
			throw new IllegalStateException("Expected a URL like jdbc:mariadb://host:port/database, got "
					+ address.url());
		}
		return new Isolated(database, url.group(1) + name + url.group(3), address.user(), address.password(), name);
	}

	private static String newName() {
		return "sq_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
	}

	private static void execute(String url, ServerAddress address, String sql) {
		try (Connection connection = DriverManager.getConnection(url, address.user(), address.password());
				Statement statement = connection.createStatement()) {
			statement.execute(sql);
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not run '" + sql + "'", ex);
		}
	}

	private synchronized ServerAddress server() {
		if (this.server == null) {
			this.server = findServer();
		}
		return this.server;
	}

	private ServerAddress findServer() {
		if (hasEmbedded() && EmbeddedServers.forced()) {
			return startEmbedded();
		}
		String configured = System.getenv(this.urlVariable);
		String url = (configured != null) ? configured : this.defaultUrl;
		String user = System.getenv().getOrDefault(this.urlVariable + "_USER", this.defaultUser);
		String password = System.getenv().getOrDefault(this.urlVariable + "_PASSWORD", "");
		SQLException failure;
		try (Connection connection = DriverManager.getConnection(url, user, password)) {
			return new ServerAddress(url, user, password);
		}
		catch (SQLException ex) {
			if (configured != null) {
				// A server someone named is not replaced by another behind their back.
				return missing(this.urlVariable + " names " + url + ", which does not answer (" + ex.getMessage() + ")",
						ex);
			}
			failure = ex;
		}
		if (this != GALERA && Containers.dockerAvailable()) {
			return startContainer();
		}
		String missing = name() + " does not answer at " + url + " (" + failure.getMessage()
				+ ") and Docker is not available";
		if (!hasEmbedded()) {
			return missing(missing + ". Start a server there, or point " + this.urlVariable + " at one", failure);
		}
		try {
			return startEmbedded();
		}
		catch (RuntimeException ex) {
			return missing(missing + ", and the embedded server did not start: " + ex.getMessage(), ex);
		}
	}

	/** PostgreSQL and MariaDB: Maven brings a server for them. */
	private boolean hasEmbedded() {
		return this == POSTGRESQL || this == MARIADB;
	}

	/**
	 * Fails the test, or skips it where that is allowed. PostgreSQL and MariaDB tests carry
	 * the queue's promises: not running them is an error unless someone explicitly accepts
	 * it; MySQL tests are skipped unless someone requires them.
	 */
	private ServerAddress missing(String message, Throwable cause) {
		String name = name().toLowerCase(Locale.ROOT);
		if (hasEmbedded() ? isNamedIn("SQLQUEUE_TEST_ALLOW_SKIP") : !isNamedIn("SQLQUEUE_TEST_REQUIRE_DATABASES")) {
			Assumptions.abort(message);
		}
		Assertions.fail(message + (hasEmbedded() ? ". SQLQUEUE_TEST_ALLOW_SKIP=" + name + " skips these tests instead."
				: ". SQLQUEUE_TEST_REQUIRE_DATABASES requires it."), cause);
		throw new IllegalStateException("unreachable");
	}

	/** Whether the environment variable lists this database (or {@code all}). */
	private boolean isNamedIn(String variable) {
		String names = System.getenv().getOrDefault(variable, "");
		return Arrays.stream(names.split(","))
			.map((name) -> name.trim().toLowerCase(Locale.ROOT))
			.anyMatch((name) -> name.equals(name().toLowerCase(Locale.ROOT)) || name.equals("all"));
	}

	record ServerAddress(String url, String user, String password) {
	}

	/** One test's database (or schema, or file) and a pool of connections to it. */
	public static final class Isolated implements AutoCloseable {

		private final TestDatabase database;

		private final String url;

		private final String user;

		private final String password;

		private final @Nullable String schema;

		private final HikariDataSource dataSource;

		/** Pools made so far: on Galera, the node of the next one. */
		private int pools;

		/** {@link #dialect()}, once fitted to the server. */
		private @Nullable Dialect fitted;

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
			return newDataSource(size, null);
		}

		/**
		 * Another pool on the same database that keeps {@code size} connections open, as Spring
		 * Boot's HikariCP pool does by default: a thread then waits for a connection only when
		 * all are in use, never for one being opened.
		 */
		public HikariDataSource newFixedDataSource(int size) {
			return newDataSource(size, null, false, size);
		}

		/** Another pool on the same database, running {@code initSql} on each new connection. */
		public HikariDataSource newDataSource(int size, @Nullable String initSql) {
			return newDataSource(size, initSql, false);
		}

		/**
		 * Another pool on the same database whose connections are read-only (SQLite: opened
		 * read-only; the others: {@code Connection.setReadOnly}), as a pool on a replica is.
		 */
		public HikariDataSource newReadOnlyDataSource(int size) {
			return newDataSource(size, null, true);
		}

		private HikariDataSource newDataSource(int size, @Nullable String initSql, boolean readOnly) {
			return newDataSource(size, initSql, readOnly, 0);
		}

		private HikariDataSource newDataSource(int size, @Nullable String initSql, boolean readOnly, int minimumIdle) {
			HikariConfig config = new HikariConfig();
			config.setConnectionInitSql(initSql);
			if (readOnly && this.database == SQLITE) {
				// The driver takes its read-only flag when it opens the file, and refuses to change it later.
				config.setJdbcUrl(this.url + "&open_mode=1");
			}
			else if (this.database == GALERA) {
				if (initSql == null) {
					// The conformance tests read at once, on any instance, what another committed, as
					// on one server: on Galera a read must wait for its node to apply what the
					// cluster committed. Claims and limits still race across nodes, at commit.
					config.setConnectionInitSql("SET SESSION wsrep_sync_wait = 1");
				}
				config.setJdbcUrl(GaleraNodes.onNode(this.url, this.pools++));
			}
			else {
				config.setJdbcUrl(this.url);
			}
			config.setReadOnly(readOnly);
			config.setUsername(this.user);
			config.setPassword(this.password);
			config.setMaximumPoolSize(size);
			config.setMinimumIdle(minimumIdle);
			if (this.schema != null && this.database == POSTGRESQL) {
				config.setSchema(this.schema);
			}
			return new HikariDataSource(config);
		}

		public DataSource dataSource() {
			return this.dataSource;
		}

		/**
		 * The dialect fitted to the server, as the starter's start-up does ({@link Dialect#fittedTo}):
		 * on MariaDB, whether the server is a Galera node is the server's answer, not the test's.
		 */
		public synchronized Dialect dialect() {
			if (this.fitted == null) {
				Dialect dialect = this.database.dialect();
				if (dialect instanceof MariaDbDialect) {
					try (Connection connection = this.dataSource.getConnection()) {
						dialect = dialect.fittedTo(connection.getMetaData());
					}
					catch (SQLException ex) {
						throw new IllegalStateException("Could not fit the dialect to " + this.database, ex);
					}
				}
				this.fitted = dialect;
			}
			return this.fitted;
		}

		public TestDatabase database() {
			return this.database;
		}

		public @Nullable String schema() {
			return this.schema;
		}

		/** The JDBC URL of this database, e.g. for a second process. */
		public String url() {
			return this.url;
		}

		/** The user of {@link #url()}, e.g. for a second process. */
		public String user() {
			return this.user;
		}

		/** The password of {@link #user()}, e.g. for a second process. */
		public String password() {
			return this.password;
		}

		@Override
		public void close() {
			try (Connection connection = this.dataSource.getConnection();
					Statement statement = connection.createStatement()) {
				this.database.drop(this, statement);
			}
			catch (SQLException ex) {
				// Best effort: the next run uses a new name anyway.
			}
			finally {
				this.dataSource.close();
				this.database.deleteFiles(this);
			}
		}

	}

}
