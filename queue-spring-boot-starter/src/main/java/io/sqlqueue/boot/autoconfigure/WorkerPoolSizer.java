package io.sqlqueue.boot.autoconfigure;

import java.util.concurrent.Executor;
import java.util.function.Supplier;

import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;

import io.sqlqueue.internal.handler.HandlerRegistry;
import io.sqlqueue.internal.manager.ManagerSettings;

/**
 * Sizes the queue's own worker pool once every singleton exists, so that it has a thread
 * for every worker of every lane the Manager will serve, including the queues of handlers
 * registered after the pool was created.
 */
final class WorkerPoolSizer implements SmartInitializingSingleton {

	private final Executor executor;

	private final HandlerRegistry handlers;

	private final Supplier<ManagerSettings> settings;

	WorkerPoolSizer(Executor executor, HandlerRegistry handlers, Supplier<ManagerSettings> settings) {
		this.executor = executor;
		this.handlers = handlers;
		this.settings = settings;
	}

	@Override
	public void afterSingletonsInstantiated() {
		if (this.executor instanceof ThreadPoolTaskExecutor pool) {
			int workers = PropertyManagerSettings.totalWorkers(this.handlers, this.settings.get());
			if (workers > pool.getMaxPoolSize()) {
				pool.setMaxPoolSize(workers);
				pool.setCorePoolSize(workers);
			}
			else {
				pool.setCorePoolSize(workers);
				pool.setMaxPoolSize(workers);
			}
		}
	}

}
