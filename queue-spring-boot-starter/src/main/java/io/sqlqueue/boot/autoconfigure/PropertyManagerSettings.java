package io.sqlqueue.boot.autoconfigure;

import java.util.LinkedHashMap;
import java.util.Map;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.PropertyMapper;

import io.sqlqueue.handler.RetryPolicy;
import io.sqlqueue.internal.handler.HandlerRegistry;
import io.sqlqueue.internal.manager.Manager;
import io.sqlqueue.internal.manager.ManagerSettings;

/**
 * The Manager's settings from {@code sqlqueue.*}, checked where a message can name the
 * property, and the workers they need.
 */
final class PropertyManagerSettings {

	private PropertyManagerSettings() {
	}

	/** The settings of the Manager from the properties. */
	static ManagerSettings of(SqlQueueProperties properties, RetryPolicy retryPolicy) {
		ManagerProperties manager = properties.getManager();
		requireBatchRange("sqlqueue.manager.batch-size", manager.getBatchSize(), 1);
		if (manager.getPrefetch() != null) {
			requireBatchRange("sqlqueue.manager.prefetch", manager.getPrefetch(), 0);
		}
		ManagerSettings.Builder settings = ManagerSettings.builder();
		PropertyMapper map = PropertyMapper.get();
		map.from(manager::getWorkerId).to(settings::workerId);
		map.from(manager::getPollInterval).to(settings::pollInterval);
		map.from(manager::getBatchSize).to(settings::batchSize);
		map.from(manager::getPrefetch).to(settings::prefetch);
		map.from(manager.getCompletion()::getLinger).to(settings::completionLinger);
		map.from(manager.getCompletion()::getBatchSize).to(settings::completionBatchSize);
		map.from(manager::getLeaseDuration).to(settings::leaseDuration);
		map.from(manager::getHeartbeatInterval).to(settings::heartbeatInterval);
		map.from(manager::getShutdownTimeout).to(settings::shutdownTimeout);
		map.from(manager::getHandlerTimeout).to(settings::handlerTimeout);
		map.from(manager::getConcurrency).to(settings::defaultConcurrency);
		map.from(properties.getRetention()::getInstances).to(settings::instanceRetention);
		map.from(manager::getResultMaxSize)
			.as((size) -> (int) Math.min(Integer.MAX_VALUE, size.toBytes()))
			.to(settings::resultMaxSize);
		Map<String, Integer> concurrency = new LinkedHashMap<>();
		properties.getQueues().forEach((queue, settingsOfQueue) -> {
			if (settingsOfQueue.getConcurrency() != null) {
				concurrency.put(queue, settingsOfQueue.getConcurrency());
			}
		});
		return settings.concurrency(concurrency)
			.queues(properties.getQueues().keySet())
			.retryPolicy(retryPolicy)
			.build();
	}

	/** Checks a batch size or prefetch here, where the message can name the property. */
	private static void requireBatchRange(String property, int value, int least) {
		if (value < least || value > ManagerSettings.MAX_BATCH_SIZE) {
			throw new IllegalStateException(property + " must be " + least + " to " + ManagerSettings.MAX_BATCH_SIZE
					+ ", not " + value + ": a claim of a queue with limits binds up to twice as many parameters, "
					+ "and past that some databases refuse the statement");
		}
	}

	/** The running Manager's settings, else those the properties make. */
	static ManagerSettings running(ObjectProvider<Manager> manager, SqlQueueProperties properties,
			RetryPolicy retryPolicy) {
		Manager running = manager.getIfUnique();
		return (running != null) ? running.settings() : of(properties, retryPolicy);
	}

	/** The workers the Manager's lanes need at most: the handlers' queues and the configured ones. */
	static int totalWorkers(HandlerRegistry handlers, ManagerSettings settings) {
		return Math.max(1, Manager.servedQueues(handlers, settings).stream().mapToInt(settings::concurrencyOf).sum());
	}

}
