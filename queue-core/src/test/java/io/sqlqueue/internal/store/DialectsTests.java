package io.sqlqueue.internal.store;

import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.function.Function;

import javax.sql.DataSource;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.jdbc.datasource.SingleConnectionDataSource;
import io.sqlqueue.internal.store.dialect.Dialects;
import io.sqlqueue.internal.store.h2.H2Dialect;
import io.sqlqueue.internal.store.mariadb.MariaDbDialect;
import io.sqlqueue.internal.store.postgresql.PostgresDialect;
import io.sqlqueue.internal.store.sqlite.SqliteDialect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/** Choosing the dialect from JDBC metadata or by name, and the start-up checks. */
class DialectsTests {

	@Test
	void detectsEachSupportedDatabaseFromItsProductName() {
		assertThat(Dialects.detect(database("PostgreSQL", "15.8"))).isInstanceOf(PostgresDialect.class);
		assertThat(Dialects.detect(database("MariaDB", "10.11.19-MariaDB-0+deb12u1")))
			.isInstanceOf(MariaDbDialect.class);
		assertThat(Dialects.detect(database("MariaDB", "10.6.0-MariaDB"))).isInstanceOf(MariaDbDialect.class);
		assertThat(Dialects.detect(database("MySQL", "8.0.36"))).isInstanceOf(MariaDbDialect.class);
		assertThat(Dialects.detect(database("MySQL", "8.0.1"))).isInstanceOf(MariaDbDialect.class);
		// MySQL's driver on a MariaDB server: the product says MySQL, the version says MariaDB.
		assertThat(Dialects.detect(database("MySQL", "5.5.5-10.6.4-MariaDB"))).isInstanceOf(MariaDbDialect.class);
		assertThat(Dialects.detect(database("H2", "2.3.232 (2024-08-11)"))).isInstanceOf(H2Dialect.class);
	}

	/**
	 * One dialect serves MariaDB and MySQL; fitted to the server, MariaDB's also inserts many
	 * jobs with one {@code INSERT … RETURNING}, which MySQL does not have.
	 */
	@Test
	void fitsTheMariaDbDialectToMariaDbOrMySql() {
		assertThat(Dialects.detect(database("MariaDB", "10.11.19-MariaDB-0+deb12u1")).insertReturningIds())
			.isEqualTo("\nRETURNING id");
		assertThat(Dialects.detect(database("MySQL", "5.5.5-10.6.4-MariaDB")).insertReturningIds()).isNotNull();
		assertThat(Dialects.check(Dialects.named("mariadb"), database("MariaDB", "10.6.0-MariaDB"))
			.insertReturningIds()).isNotNull();
		assertThat(Dialects.detect(database("MySQL", "8.0.36")).insertReturningIds()).isNull();
		assertThat(Dialects.check(Dialects.named("mariadb"), database("MySQL", "8.4.3")).insertReturningIds())
			.isNull();
		assertThat(new MariaDbDialect().insertReturningIds()).isNull();
	}

	/**
	 * A plain MariaDB or MySQL server (no {@code wsrep_on}) holds every writer off a locked row:
	 * only a dialect fitted to a Galera node writes the rows its decisions rest on.
	 */
	@Test
	void fitsTheMariaDbDialectToAPlainServersRowLocks() {
		assertThat(Dialects.detect(database("MariaDB", "10.11.19-MariaDB-0+deb12u1")).rowLocksHoldEveryWriter())
			.isTrue();
		assertThat(Dialects.detect(database("MySQL", "8.0.36")).rowLocksHoldEveryWriter()).isTrue();
	}

	@Test
	void refusesMariaDbAndMySqlWithoutSkipLocked() {
		assertThatIllegalStateException().isThrownBy(() -> Dialects.detect(database("MariaDB", "10.5.27-MariaDB")))
			.withMessageContaining("MariaDB 10.6+ or MySQL 8.0.1+")
			.withMessageContaining("10.5.27");
		assertThatIllegalStateException()
			.isThrownBy(() -> Dialects.detect(database("MySQL", "5.5.5-10.5.3-MariaDB")))
			.withMessageContaining("MariaDB 5.5.5-10.5.3");
		assertThatIllegalStateException().isThrownBy(() -> Dialects.detect(database("MySQL", "8.0.0")))
			.withMessageContaining("MySQL 8.0.0");
		assertThatIllegalStateException().isThrownBy(() -> Dialects.detect(database("MySQL", "5.7.44")))
			.withMessageContaining("SKIP LOCKED");
	}

	@Test
	void refusesAnUnsupportedDatabaseNamingTheSupportedOnes() {
		assertThatIllegalStateException().isThrownBy(() -> Dialects.detect(database("Oracle", "23.4")))
			.withMessageContaining("'Oracle 23.4'")
			.withMessageContaining("PostgreSQL 12+ (postgresql)")
			.withMessageContaining("MariaDB 10.6+ and MySQL 8.0.1+ (mariadb)")
			.withMessageContaining("H2 2.x (h2)")
			.withMessageContaining("SQLite 3.35+ (sqlite)")
			.withMessageContaining("sqlqueue.jdbc.dialect")
			.withMessageContaining("compare-and-set");
	}

	@Test
	void choosesByNameIgnoringCaseAndRefusesUnknownNames() {
		assertThat(Dialects.named("postgresql")).isInstanceOf(PostgresDialect.class);
		assertThat(Dialects.named("MariaDB")).isInstanceOf(MariaDbDialect.class);
		assertThat(Dialects.named("h2")).isInstanceOf(H2Dialect.class);
		assertThat(Dialects.named("sqlite")).isInstanceOf(SqliteDialect.class);
		assertThatIllegalArgumentException().isThrownBy(() -> Dialects.named("oracle"))
			.withMessageContaining("'oracle'")
			.withMessageContaining("postgresql")
			.withMessageContaining("mariadb")
			.withMessageContaining("h2")
			.withMessageContaining("sqlite");
	}

	@Test
	void namedDialectCanBeCheckedAtStartUpToo() {
		assertThatIllegalStateException()
			.isThrownBy(() -> Dialects.check(Dialects.named("mariadb"), database("MariaDB", "10.4.1-MariaDB")))
			.withMessageContaining("10.4.1");
	}

	@Test
	void detectsSqliteAndSwitchesItsFileToWal(@TempDir Path directory) throws Exception {
		Path file = directory.resolve("queue.db");
		try (SingleConnectionDataSource dataSource = sqlite("jdbc:sqlite:" + file)) {
			assertThat(Dialects.detect(dataSource)).isInstanceOf(SqliteDialect.class);
		}
		try (SingleConnectionDataSource dataSource = sqlite("jdbc:sqlite:" + file);
				var statement = dataSource.getConnection().createStatement();
				var result = statement.executeQuery("PRAGMA journal_mode")) {
			assertThat(result.next()).isTrue();
			assertThat(result.getString(1)).isEqualTo("wal");
		}
		assertThat(Files.exists(file)).isTrue();
	}

	@Test
	void refusesSqliteInMemoryOrWithoutBusyTimeoutOrTooOld(@TempDir Path directory) {
		try (SingleConnectionDataSource dataSource = sqlite("jdbc:sqlite::memory:")) {
			assertThatIllegalStateException().isThrownBy(() -> Dialects.detect(dataSource))
				.withMessageContaining("WAL")
				.withMessageContaining("in-memory");
		}
		try (SingleConnectionDataSource dataSource = sqlite(
				"jdbc:sqlite:" + directory.resolve("queue.db") + "?busy_timeout=0")) {
			assertThatIllegalStateException().isThrownBy(() -> Dialects.detect(dataSource))
				.withMessageContaining("busy timeout")
				.withMessageContaining("busy_timeout=10000");
		}
		assertThatIllegalStateException().isThrownBy(() -> Dialects.detect(database("SQLite", "3.34.1")))
			.withMessageContaining("SQLite 3.35+")
			.withMessageContaining("3.34.1");
	}

	@Test
	void compareAndSetIsSupportedEverywhereAndEachDialectsOwnClaimByIt() {
		for (Dialect dialect : new Dialect[] { new PostgresDialect(), new MariaDbDialect(), new H2Dialect(),
				new SqliteDialect() }) {
			assertThat(dialect.supports(ClaimMethod.COMPARE_AND_SET)).as(dialect.name()).isTrue();
			assertThat(dialect.supports(dialect.claimMethod())).as(dialect.name()).isTrue();
		}
		assertThat(new MariaDbDialect().supports(ClaimMethod.UPDATE_RETURNING)).isFalse();
		assertThat(new H2Dialect().supports(ClaimMethod.UPDATE_RETURNING)).isFalse();
		assertThat(new SqliteDialect().supports(ClaimMethod.LOCK_THEN_UPDATE)).isFalse();
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new JobStore(database("SQLite", "3.53.0"), new SqliteDialect(), null,
					ClaimMethod.LOCK_THEN_UPDATE))
			.withMessageContaining("LOCK_THEN_UPDATE");
	}

	@Test
	void parsesServerVersions() {
		assertThat(ServerVersion.parse("10.11.19-MariaDB-0+deb12u1")).isEqualTo(new ServerVersion(10, 11, 19));
		assertThat(ServerVersion.parse("5.5.5-10.6.4-MariaDB")).isEqualTo(new ServerVersion(10, 6, 4));
		assertThat(ServerVersion.parse("8.0")).isEqualTo(new ServerVersion(8, 0, 0));
		assertThat(ServerVersion.parse("unknown")).isNull();
		assertThat(new ServerVersion(10, 6, 0).isAtLeast(10, 6, 0)).isTrue();
		assertThat(new ServerVersion(10, 5, 99).isAtLeast(10, 6, 0)).isFalse();
	}

	private static SingleConnectionDataSource sqlite(String url) {
		return new SingleConnectionDataSource(url, true);
	}

	/**
	 * A data source whose connections only report a product name and version, and answer a
	 * query with no rows (a server without the variables a Galera node has).
	 */
	private static DataSource database(String product, String version) {
		ResultSet noRows = proxy(ResultSet.class, (method) -> switch (method) {
			case "next" -> false;
			case "close" -> null;
			default -> throw new UnsupportedOperationException(method);
		});
		Statement statement = proxy(Statement.class, (method) -> switch (method) {
			case "executeQuery" -> noRows;
			case "close" -> null;
			default -> throw new UnsupportedOperationException(method);
		});
		Connection[] connection = new Connection[1];
		DatabaseMetaData metaData = proxy(DatabaseMetaData.class, (method) -> switch (method) {
			case "getDatabaseProductName" -> product;
			case "getDatabaseProductVersion" -> version;
			case "getURL" -> "jdbc:test";
			case "getConnection" -> connection[0];
			default -> throw new UnsupportedOperationException(method);
		});
		connection[0] = proxy(Connection.class, (method) -> switch (method) {
			case "getMetaData" -> metaData;
			case "createStatement" -> statement;
			case "close" -> null;
			default -> throw new UnsupportedOperationException(method);
		});
		return proxy(DataSource.class, (method) -> switch (method) {
			case "getConnection" -> connection[0];
			default -> throw new UnsupportedOperationException(method);
		});
	}

	private static <T> T proxy(Class<T> type, Function<String, Object> answers) {
		return type.cast(Proxy.newProxyInstance(DialectsTests.class.getClassLoader(), new Class<?>[] { type },
				(proxy, method, args) -> answers.apply(method.getName())));
	}

}
