package io.sqlqueue.boot.autoconfigure;

import java.util.function.BooleanSupplier;

import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * Whether every {@code @JobHandler} bean is registered: true once the application context
 * has made all its singletons. An enqueue from a bean made earlier (its
 * {@code @PostConstruct}, say) could otherwise be reported for a handler made after it.
 */
final class HandlersRegistered implements SmartInitializingSingleton, BooleanSupplier {

	private volatile boolean registered;

	@Override
	public void afterSingletonsInstantiated() {
		this.registered = true;
	}

	@Override
	public boolean getAsBoolean() {
		return this.registered;
	}

}
