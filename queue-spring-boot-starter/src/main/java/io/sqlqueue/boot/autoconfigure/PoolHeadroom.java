package io.sqlqueue.boot.autoconfigure;

import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfigMXBean;
import com.zaxxer.hikari.HikariDataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.jdbc.DataSourceUnwrapper;
import org.springframework.util.ClassUtils;

import io.sqlqueue.handler.HandlerDefinition;
import io.sqlqueue.internal.handler.HandlerRegistry;
import io.sqlqueue.internal.manager.Manager;
import io.sqlqueue.internal.manager.ManagerSettings;

/**
 * Checks at start-up, once every handler is registered, that the application's connection
 * pool leaves room for the connections the queue may hold at once (docs/configuration.md,
 * "Connections the queue needs"), and says so in one WARN line when it does not: a pool the
 * queue can empty makes the application's own requests wait for the queue's loops.
 * <p>
 * The queue holds at once: one connection for its poll loop, one for its heartbeat, one for
 * the pass of the shared scheduler under way (completion flush, reaper, counts, ...), one for
 * {@code LISTEN} on PostgreSQL with notifications, and one per worker of a queue that has a
 * transactional handler, for the whole run of its attempt. Nothing else grows with the
 * work: the heartbeat holds one connection however many rows others hold. Only a HikariCP
 * pool (Spring Boot's default) is read; another pool is not checked.
 */
final class PoolHeadroom implements SmartInitializingSingleton {

	private static final Logger logger = LoggerFactory.getLogger(PoolHeadroom.class);

	private static final boolean HIKARI = ClassUtils.isPresent("com.zaxxer.hikari.HikariDataSource",
			PoolHeadroom.class.getClassLoader());

	/** The poll loop, the heartbeat and one pass of the shared scheduler. */
	static final int LOOPS = 3;

	private final DataSource dataSource;

	private final HandlerRegistry handlers;

	private final Supplier<ManagerSettings> settings;

	private final boolean listens;

	PoolHeadroom(DataSource dataSource, HandlerRegistry handlers, Supplier<ManagerSettings> settings,
			boolean listens) {
		this.dataSource = dataSource;
		this.handlers = handlers;
		this.settings = settings;
		this.listens = listens;
	}

	@Override
	public void afterSingletonsInstantiated() {
		Integer poolSize = poolSize(this.dataSource);
		if (poolSize == null) {
			return;
		}
		ManagerSettings settings = this.settings.get();
		Set<String> transactionalQueues = transactionalQueues(this.handlers, settings);
		int transactionalWorkers = transactionalQueues.stream().mapToInt(settings::concurrencyOf).sum();
		int needed = LOOPS + (this.listens ? 1 : 0) + transactionalWorkers;
		if (poolSize <= needed) {
			logger.warn("The connection pool has {} connections and sqlqueue may hold {} of them at once ({} for its "
					+ "loops{}{}), which leaves the application {}: raise spring.datasource.hikari.maximum-pool-size "
					+ "above {} plus what the application uses itself, or lower the concurrency of those queues",
					poolSize, needed, LOOPS, this.listens ? ", 1 for LISTEN" : "",
					(transactionalWorkers > 0) ? ", " + transactionalWorkers + " for the workers of queues with "
							+ "transactional handlers " + transactionalQueues : "",
					Math.max(0, poolSize - needed), needed);
		}
	}

	/** The queues served whose handlers include a transactional one, in name order. */
	static Set<String> transactionalQueues(HandlerRegistry handlers, ManagerSettings settings) {
		Set<String> served = Set.copyOf(Manager.servedQueues(handlers, settings));
		return handlers.all()
			.stream()
			.filter(HandlerDefinition::transactional)
			.map(HandlerDefinition::queue)
			.filter(served::contains)
			.collect(Collectors.toCollection(java.util.TreeSet::new));
	}

	private static @Nullable Integer poolSize(DataSource dataSource) {
		return HIKARI ? Hikari.maximumPoolSize(dataSource) : null;
	}

	/** Kept apart, so that nothing of HikariCP is loaded where the application has another pool. */
	private static final class Hikari {

		static @Nullable Integer maximumPoolSize(DataSource dataSource) {
			HikariConfigMXBean pool = DataSourceUnwrapper.unwrap(dataSource, HikariConfigMXBean.class,
					HikariDataSource.class);
			return (pool != null) ? pool.getMaximumPoolSize() : null;
		}

	}

}
