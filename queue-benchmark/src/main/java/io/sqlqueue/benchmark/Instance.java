package io.sqlqueue.benchmark;

import java.util.LinkedHashMap;
import java.util.Map;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import io.sqlqueue.JobQueue;

/**
 * One running application instance: its own context, connection pool, Manager and workers.
 */
final class Instance implements AutoCloseable {

	private final ConfigurableApplicationContext context;

	private Instance(ConfigurableApplicationContext context) {
		this.context = context;
	}

	/** Starts an instance with the database settings and these {@code sqlqueue.*} (or other) properties. */
	static Instance start(Target target, Map<String, Object> properties) {
		Map<String, Object> all = new LinkedHashMap<>(target.properties());
		all.put("spring.main.banner-mode", "off");
		all.put("spring.main.log-startup-info", "false");
		all.put("logging.level.root", "WARN");
		all.put("logging.level.io.sqlqueue", "WARN");
		all.putAll(properties);
		ConfigurableApplicationContext context = new SpringApplicationBuilder(BenchmarkApplication.class)
			.web(WebApplicationType.NONE)
			.properties(all)
			.run();
		return new Instance(context);
	}

	/** An instance that only enqueues. */
	static Instance producer(Target target, boolean notify) {
		return start(target, Map.of("sqlqueue.manager.enabled", "false",
				"sqlqueue.jdbc.notify", String.valueOf(notify)));
	}

	JobQueue jobs() {
		return this.context.getBean(JobQueue.class);
	}

	<T> T bean(Class<T> type) {
		return this.context.getBean(type);
	}

	@Override
	public void close() {
		this.context.close();
	}

}
