package io.sqlqueue.boot.autoconfigure;

import java.util.List;
import java.util.Set;

import org.springframework.beans.factory.SmartInitializingSingleton;

import io.sqlqueue.internal.handler.UnknownQueues;

/**
 * Checks the queues of {@code sqlqueue.queues} against the handlers once the application
 * context has made all its singletons: before, {@code @JobHandler} beans made later are not
 * registered yet, and their queues would look unknown.
 */
final class ConfiguredQueuesCheck implements SmartInitializingSingleton {

	private final UnknownQueues unknownQueues;

	private final List<String> configured;

	ConfiguredQueuesCheck(UnknownQueues unknownQueues, Set<String> configured) {
		this.unknownQueues = unknownQueues;
		this.configured = List.copyOf(configured);
	}

	@Override
	public void afterSingletonsInstantiated() {
		this.unknownQueues.check(this.configured);
	}

}
