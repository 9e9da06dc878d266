package io.sqlqueue.boot.deploy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import io.sqlqueue.JobQueue;
import io.sqlqueue.test.TestDatabase;

/**
 * The instances of one application on one database, each a whole Spring Boot application
 * started from a version's configuration, stopped as a deploy stops it (the context closes,
 * as on SIGTERM), with the ledger the versions' handlers write to.
 */
final class Fleet implements AutoCloseable {

	private final TestDatabase.Isolated database;

	private final Ledger ledger;

	private final List<ConfigurableApplicationContext> running = new ArrayList<>();

	private int started;

	Fleet(TestDatabase.Isolated database, Ledger ledger) {
		this.database = database;
		this.ledger = ledger;
	}

	/** A new instance of {@code version} ({@link VersionOne} or {@link VersionTwo}), started. */
	Instance start(Class<?> version, Map<String, Object> versionProperties) {
		Map<String, Object> properties = new HashMap<>(versionProperties);
		properties.put("spring.datasource.url", this.database.url());
		properties.put("spring.datasource.username", this.database.user());
		properties.put("spring.datasource.password", this.database.password());
		properties.put("spring.datasource.hikari.maximum-pool-size", 20);
		properties.put("sqlqueue.jdbc.schema", this.database.schema());
		String worker = version.getSimpleName() + "-" + (++this.started);
		properties.put("sqlqueue.manager.worker-id", worker);
		properties.put("sqlqueue.manager.poll-interval", "50ms");
		properties.put("sqlqueue.manager.shutdown-timeout", "500ms");
		// Short leases and reaper passes, so a stop that counted as a crash would show within
		// the scenario rather than after it.
		properties.put("sqlqueue.manager.lease-duration", "5s");
		properties.put("sqlqueue.manager.heartbeat-interval", "300ms");
		properties.put("sqlqueue.maintenance.reaper-interval", "1s");
		properties.put("sqlqueue.maintenance.schedule-interval", "200ms");
		ConfigurableApplicationContext context = new SpringApplicationBuilder(version)
			.web(WebApplicationType.NONE)
			.bannerMode(Banner.Mode.OFF)
			.logStartupInfo(false)
			.registerShutdownHook(false)
			.properties(properties)
			.initializers((initializing) -> initializing.getBeanFactory().registerSingleton("ledger", this.ledger))
			.run();
		synchronized (this.running) {
			this.running.add(context);
		}
		return new Instance(worker, context);
	}

	/** Stops the instance as a deploy does: its context closes. */
	void stop(Instance instance) {
		synchronized (this.running) {
			this.running.remove(instance.context());
		}
		instance.context().close();
	}

	@Override
	public void close() {
		List<ConfigurableApplicationContext> left;
		synchronized (this.running) {
			left = new ArrayList<>(this.running);
			this.running.clear();
		}
		left.forEach(ConfigurableApplicationContext::close);
	}

	/** One instance; {@code name} is its worker id, in the leases it takes. */
	record Instance(String name, ConfigurableApplicationContext context) {

		JobQueue queue() {
			return this.context.getBean(JobQueue.class);
		}

	}

}
