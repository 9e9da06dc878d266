package io.sqlqueue.internal.store;

import java.sql.SQLException;
import java.util.Set;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.dao.DataAccessException;
import org.springframework.dao.TransientDataAccessResourceException;
import org.springframework.jdbc.support.SQLExceptionTranslator;
import org.springframework.util.ClassUtils;

/**
 * The one place where an error that says the server is no primary now is recognised, and the
 * pool's connections to it are dropped, so that no instance stays stuck on a demoted or
 * read-only primary after a failover: a write refused in a read-only transaction (SQLState
 * {@code 25006}: a primary demoted to a standby, or made read-only, keeps its sessions), and
 * a server shutting down or starting up ({@code 57P01}, {@code 57P02}, {@code 57P03}).
 * <p>
 * HikariCP evicts a connection whose error has a {@code 08} SQLState or one of {@code 57P01},
 * {@code 57P02}, {@code 57P03} ({@code ProxyConnection.checkException}), but not on
 * {@code 25006}: its connection would go back to the pool and fail every statement, its
 * LISTEN too, until its maximum lifetime. So when the queue's data source is Hikari, its
 * connections are soft-evicted here (idle ones closed now, those in use when they come back);
 * new ones go, through a multi-host URL with {@code targetServerType=primary}, to the new
 * primary. Any other pool is left alone (its own validation must catch it) and said so once.
 * <p>
 * As a translator of the store's statements, it turns such an error into a
 * {@link TransientDataAccessResourceException}: a write refused by a demoted primary is
 * tried again (on the new primary), as after a lost connection, never taken for bad data.
 */
public final class DemotedServers implements SQLExceptionTranslator {

	private static final Logger logger = LoggerFactory.getLogger(DemotedServers.class);

	/** read_only_sql_transaction, admin_shutdown, crash_shutdown, cannot_connect_now. */
	private static final Set<String> NOT_A_PRIMARY = Set.of("25006", "57P01", "57P02", "57P03");

	private static final boolean HIKARI_PRESENT = ClassUtils.isPresent("com.zaxxer.hikari.HikariDataSource",
			DemotedServers.class.getClassLoader());

	private static volatile boolean otherPoolTold;

	private final DataSource dataSource;

	private final SQLExceptionTranslator next;

	DemotedServers(DataSource dataSource, SQLExceptionTranslator next) {
		this.dataSource = dataSource;
		this.next = next;
	}

	@Override
	public @Nullable DataAccessException translate(String task, @Nullable String sql, SQLException ex) {
		if (evictIfNotAPrimary(this.dataSource, ex)) {
			return new TransientDataAccessResourceException(
					task + "; the server is not a primary now (SQLState " + ex.getSQLState() + "): " + ex.getMessage(),
					ex);
		}
		return this.next.translate(task, sql, ex);
	}

	/**
	 * Whether {@code failure} (or an exception it was caused by) says the server is not a
	 * primary now; if so, the pool's connections are dropped first.
	 */
	public static boolean evictIfNotAPrimary(DataSource dataSource, Throwable failure) {
		String state = notAPrimaryState(failure);
		if (state == null) {
			return false;
		}
		if (HIKARI_PRESENT && Hikari.softEvict(dataSource)) {
			logger.warn("The database server is not a primary now (SQLState {}); dropping the pool's connections to it",
					state);
		}
		else if (!otherPoolTold) {
			otherPoolTold = true;
			logger.warn("The database server is not a primary now (SQLState {}); the queue's pool is not HikariCP, "
					+ "so its connections to that server stay until the pool drops them", state);
		}
		return true;
	}

	private static @Nullable String notAPrimaryState(@Nullable Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof SQLException sql && sql.getSQLState() != null
					&& NOT_A_PRIMARY.contains(sql.getSQLState())) {
				return sql.getSQLState();
			}
			if (cause.getCause() == cause) {
				break;
			}
		}
		return null;
	}

	/** Apart, so that nothing of Hikari is loaded where it is absent. */
	private static final class Hikari {

		static boolean softEvict(DataSource dataSource) {
			try {
				if (!dataSource.isWrapperFor(com.zaxxer.hikari.HikariDataSource.class)) {
					return false;
				}
				com.zaxxer.hikari.HikariPoolMXBean pool = dataSource.unwrap(com.zaxxer.hikari.HikariDataSource.class)
					.getHikariPoolMXBean();
				if (pool == null) {
					return false;
				}
				pool.softEvictConnections();
				return true;
			}
			catch (SQLException | RuntimeException ex) {
				logger.debug("Could not evict the pool's connections", ex);
				return false;
			}
		}

	}

}
