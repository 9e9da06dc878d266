package io.sqlqueue.test;

import java.nio.file.Path;
import java.util.Locale;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

/**
 * Database servers from Maven, for machines with no local server and no Docker: started
 * once per JVM, under the module's {@code target/embedded-databases}, stopped when the JVM
 * ends. {@code SQLQUEUE_TEST_DATABASES=embedded} (or {@code -Dsqlqueue.test.databases=embedded})
 * uses them even where a server answers, to prove this path.
 */
public final class EmbeddedServers {

	private static final Path DIRECTORY = Path.of("target", "embedded-databases");

	private static final Once<EmbeddedPostgres> POSTGRES = new Once<>();

	private static final Once<String> MARIADB = new Once<>();

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

	static TestDatabase.ServerAddress postgres() {
		EmbeddedPostgres server = POSTGRES.get(() -> {
			long started = System.nanoTime();
			EmbeddedPostgres postgres = EmbeddedPostgres.start(DIRECTORY.resolve("postgresql"));
			log("PostgreSQL", postgres.url(), started);
			return postgres;
		});
		return new TestDatabase.ServerAddress(server.url(), "postgres", "");
	}

	static TestDatabase.ServerAddress mariadb() {
		String url = MARIADB.get(() -> {
			long started = System.nanoTime();
			String mariadb = EmbeddedMariaDb.start(DIRECTORY.resolve("mariadb"));
			log("MariaDB", mariadb, started);
			return mariadb;
		});
		return new TestDatabase.ServerAddress(url, "root", "");
	}

	/** The embedded PostgreSQL serving {@code url}, if this JVM started one there. */
	public static @Nullable EmbeddedPostgres postgresAt(String url) {
		EmbeddedPostgres postgres = POSTGRES.current();
		return (postgres != null && url.startsWith("jdbc:postgresql://127.0.0.1:" + postgres.port() + "/")) ? postgres
				: null;
	}

	private static void log(String name, String url, long started) {
		// How long a machine without servers waits for them (docs/getting-started.md gives the numbers).
		System.out.println("Embedded " + name + " started at " + url + " in "
				+ (System.nanoTime() - started) / 1_000_000 + " ms");
	}

	/**
	 * A server started at most once. A start that failed fails every later call at once,
	 * rather than each test trying (and waiting) again.
	 */
	private static final class Once<T> {

		private @Nullable T value;

		private @Nullable RuntimeException failure;

		synchronized T get(Supplier<T> start) {
			if (this.failure != null) {
				throw this.failure;
			}
			if (this.value == null) {
				try {
					this.value = start.get();
				}
				catch (RuntimeException ex) {
					this.failure = ex;
					throw ex;
				}
			}
			return this.value;
		}

		synchronized @Nullable T current() {
			return this.value;
		}

	}

}
