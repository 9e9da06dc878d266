package io.sqlqueue.fault;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Assumptions;

import org.springframework.jdbc.core.JdbcTemplate;

import io.sqlqueue.test.EmbeddedPostgres;
import io.sqlqueue.test.EmbeddedServers;

/**
 * Faults of the database server: its connections cut, or the whole server restarted. A
 * restart needs the embedded server of the tests ({@link EmbeddedServers}), or the server on
 * this machine as a Debian/Ubuntu cluster ({@code pg_lsclusters}, {@code pg_ctlcluster}) and
 * the right to restart it (root, or its owner); without them the test that needs it is
 * skipped with a message saying so.
 */
final class PostgresServer {

	private static final Pattern HOST_AND_PORT = Pattern
		.compile("^jdbc:postgresql://([^/:?]+|\\[[^]]+\\])(?::(\\d+))?/.*");

	private static final Set<String> LOCAL_HOSTS = Set.of("127.0.0.1", "localhost", "[::1]", "::1");

	private PostgresServer() {
	}

	/** Terminates the server processes of every connection whose application name starts so; returns how many. */
	static int terminateBackends(JdbcTemplate jdbc, String applicationNamePrefix) {
		Integer terminated = jdbc.queryForObject("""
				SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM pg_stat_activity
				WHERE application_name LIKE ? AND pid <> pg_backend_pid()""", Integer.class,
				applicationNamePrefix.replace("_", "\\_") + "%");
		return (terminated != null) ? terminated : 0;
	}

	/** A server that can be restarted from a test. */
	interface Restartable {

		/** Restarts the server ("fast": every session is ended) and waits until it answers again. */
		void restart();

		/** Starts the server if it does not answer (after a failed restart), so no test leaves it down. */
		void ensureRunning();

	}

	/** The server that serves {@code url}; aborts the test when there is none to restart. */
	static Restartable restartableOrSkip(String url) {
		EmbeddedPostgres embedded = EmbeddedServers.postgresAt(url);
		if (embedded != null) {
			return new Restartable() {
				@Override
				public void restart() {
					embedded.restart();
				}

				@Override
				public void ensureRunning() {
					embedded.ensureRunning();
				}
			};
		}
		return localClusterOrSkip(url);
	}

	/** The cluster on this machine that serves {@code url}; aborts the test when there is none to restart. */
	private static LocalCluster localClusterOrSkip(String url) {
		Matcher matcher = HOST_AND_PORT.matcher(url);
		Assumptions.assumeTrue(matcher.matches() && LOCAL_HOSTS.contains(matcher.group(1)),
				() -> "PostgreSQL at " + url + " is not on this machine: a restart cannot be tested");
		int port = (matcher.group(2) != null) ? Integer.parseInt(matcher.group(2)) : 5432;
		String clusters = run(Duration.ofSeconds(30), "pg_lsclusters", "--no-header");
		Assumptions.assumeTrue(clusters != null,
				"pg_lsclusters is not available: the PostgreSQL server at " + url + " cannot be restarted by the test");
		for (String line : clusters.split("\n")) {
			String[] columns = line.trim().split("\\s+");
			if (columns.length >= 5 && columns[2].equals(String.valueOf(port)) && columns[3].startsWith("online")) {
				String user = System.getProperty("user.name");
				Assumptions.assumeTrue(user.equals("root") || user.equals(columns[4]),
						() -> "PostgreSQL cluster " + columns[0] + "/" + columns[1] + " belongs to " + columns[4] + "; "
								+ user + " cannot restart it");
				return new LocalCluster(columns[0], columns[1], port);
			}
		}
		Assumptions.abort("No online cluster of pg_lsclusters serves port " + port + ": " + clusters.trim());
		throw new IllegalStateException("unreachable");
	}

	/** The output of a command that exited 0 in time, or {@code null}. */
	private static String run(Duration timeout, String... command) {
		try {
			Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
			process.getOutputStream().close();
			if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
				process.destroyForcibly();
				return null;
			}
			String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
			return (process.exitValue() == 0) ? output : null;
		}
		catch (IOException ex) {
			return null;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return null;
		}
	}

	/** A cluster of this machine, by its {@code pg_lsclusters} version and name. */
	record LocalCluster(String version, String name, int port) implements Restartable {

		@Override
		public void restart() {
			List<String> command = List.of("pg_ctlcluster", "--skip-systemctl-redirect", this.version, this.name,
					"restart");
			if (run(Duration.ofMinutes(2), command.toArray(String[]::new)) == null) {
				throw new IllegalStateException(String.join(" ", command) + " failed");
			}
			awaitReady();
		}

		@Override
		public void ensureRunning() {
			if (!isReady()) {
				run(Duration.ofMinutes(2), "pg_ctlcluster", "--skip-systemctl-redirect", this.version, this.name,
						"start");
				awaitReady();
			}
		}

		private void awaitReady() {
			long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
			while (!isReady()) {
				if (System.nanoTime() > deadline) {
					throw new IllegalStateException("PostgreSQL on port " + this.port + " did not answer within 60 s");
				}
				try {
					Thread.sleep(100);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					throw new IllegalStateException(ex);
				}
			}
		}

		private boolean isReady() {
			return run(Duration.ofSeconds(10), "pg_isready", "-q", "-h", "127.0.0.1", "-p", String.valueOf(this.port),
					"-t", "2") != null;
		}

	}

}
