package io.sqlqueue.test;

import java.nio.file.Path;
import java.util.Locale;

import org.jspecify.annotations.Nullable;

/**
 * Database servers from Maven, for machines with no local server and no Docker: started
 * once per JVM, under the module's {@code target/embedded-databases}, stopped when the JVM
 * ends. {@code SQLQUEUE_TEST_DATABASES=embedded} (or {@code -Dsqlqueue.test.databases=embedded})
 * uses them even where a server answers, to prove this path.
 */
public final class EmbeddedServers {

	private static final Path DIRECTORY = Path.of("target", "embedded-databases");

	private static @Nullable EmbeddedPostgres postgres;

	private static @Nullable String mariadb;

	private EmbeddedServers() {
	}

	/** Whether the tests must use the embedded servers, not the machine's or Docker's. */
	public static boolean forced() {
		String value = System.getProperty("sqlqueue.test.databases", "");
		if (value.isBlank()) {
			value = System.getenv().getOrDefault("SQLQUEUE_TEST_DATABASES", "");
		}
		return value.trim().toLowerCase(Locale.ROOT).equals("embedded");
	}

	static synchronized TestDatabase.ServerAddress postgres() {
		if (postgres == null) {
			long started = System.nanoTime();
			postgres = EmbeddedPostgres.start(DIRECTORY.resolve("postgresql"));
			log("PostgreSQL", postgres.url(), started);
		}
		return new TestDatabase.ServerAddress(postgres.url(), "postgres", "");
	}

	static synchronized TestDatabase.ServerAddress mariadb() {
		if (mariadb == null) {
			long started = System.nanoTime();
			mariadb = EmbeddedMariaDb.start(DIRECTORY.resolve("mariadb"));
			log("MariaDB", mariadb, started);
		}
		return new TestDatabase.ServerAddress(mariadb, "root", "");
	}

	/** The embedded PostgreSQL serving {@code url}, if this JVM started one there. */
	public static synchronized @Nullable EmbeddedPostgres postgresAt(String url) {
		return (postgres != null && url.startsWith("jdbc:postgresql://127.0.0.1:" + postgres.port() + "/")) ? postgres
				: null;
	}

	private static void log(String name, String url, long started) {
		// How long a machine without servers waits for them (docs/testing.md gives the numbers).
		System.out.println("Embedded " + name + " started at " + url + " in "
				+ (System.nanoTime() - started) / 1_000_000 + " ms");
	}

}
