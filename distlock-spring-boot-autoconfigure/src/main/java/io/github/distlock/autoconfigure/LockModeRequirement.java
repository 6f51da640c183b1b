package io.github.distlock.autoconfigure;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;

import io.github.distlock.LockDefinitionException;
import io.github.distlock.engine.LockEngine;
import io.github.distlock.interceptor.LockOperation;
import io.github.distlock.interceptor.LockOperationSource;

/**
 * Fails start-up when a bean declares a read/write lock or permits and the configured engine has exclusive locks
 * only, instead of letting the method fail at its first call.
 * <p>
 * Runs once every singleton exists, when {@link io.github.distlock.interceptor.LockDefinitionValidator} has parsed
 * the declarations of every bean created; a lazily created bean is checked at its first call by the engine itself.
 */
final class LockModeRequirement implements SmartInitializingSingleton {

	private final ObjectProvider<LockEngine> engines;

	private final ObjectProvider<LockOperationSource> operations;

	LockModeRequirement(ObjectProvider<LockEngine> engines, ObjectProvider<LockOperationSource> operations) {
		this.engines = engines;
		this.operations = operations;
	}

	@Override
	public void afterSingletonsInstantiated() {
		LockEngine engine = this.engines.getIfUnique();
		LockOperationSource source = this.operations.getIfAvailable();
		if (engine == null || source == null) {
			// No engine is LockEngineRequirement's to report; several, the application's own choice to make.
			return;
		}
		for (LockOperation operation : source.parsedOperations()) {
			if (!engine.supports(operation.mode(), operation.permits() > 0)) {
				String asked = (operation.permits() > 0) ? "permits = \"" + operation.permits() + "\""
						: "mode = " + operation.mode();
				throw new LockDefinitionException(operation.methodId(), asked + " needs an engine with "
						+ ((operation.permits() > 0) ? "permits" : "read/write locks") + ", and the configured engine ("
						+ engine.getClass().getSimpleName() + ") has exclusive locks only; use the Redis engine "
						+ "(distlock-redis) for this lock, or an exclusive lock", null);
			}
		}
	}

}
