package io.sqlqueue.fault;

import org.junit.jupiter.api.Assumptions;

import org.springframework.jdbc.core.JdbcTemplate;

import io.sqlqueue.test.EmbeddedPostgres;
import io.sqlqueue.test.EmbeddedServers;

/**
 * Faults of the database server: its connections cut, or the whole server restarted. A
 * restart needs the embedded server the tests started themselves ({@link EmbeddedServers}):
 * a server the tests did not start (the machine's own) is never stopped or restarted, and the
 * test that needs one is skipped there with a message saying so (CI runs it in its pass on
 * the embedded servers).
 */
final class PostgresServer {

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
		Assumptions.abort("A restart is tested only on the embedded server the tests start themselves "
				+ "(SQLQUEUE_TEST_DATABASES=embedded, as .ci/run's second pass does): PostgreSQL at " + url
				+ " is a server the tests did not start, and they never stop or restart one");
		throw new IllegalStateException("unreachable");
	}
}
