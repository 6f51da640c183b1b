package io.github.distlock.autoconfigure;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;

import io.github.distlock.engine.LockEngine;

/**
 * Fails start-up when distlock is on but no lock engine was configured, instead of letting annotated methods fail
 * at their first call (or, worse, run unlocked). Says which engines there are and what each needs.
 */
final class LockEngineRequirement implements SmartInitializingSingleton {

	static final String ENGINES = "distlock-redis (io.github.distlock:distlock-redis, with org.redisson:redisson; "
			+ "distlock-spring-boot-starter brings both) with Redis settings (spring.data.redis.* or "
			+ "distlock.redis.config)";

	private final ObjectProvider<LockEngine> engines;

	private final String backend;

	/**
	 * @param backend {@code distlock.backend}, or null when unset
	 */
	LockEngineRequirement(ObjectProvider<LockEngine> engines, String backend) {
		this.engines = engines;
		this.backend = backend;
	}

	@Override
	public void afterSingletonsInstantiated() {
		if (this.engines.stream().findAny().isPresent()) {
			return;
		}
		String chosen = (this.backend != null)
				? " for distlock.backend=" + this.backend + " (known: redis)" : "";
		throw new IllegalStateException("distlock has no lock engine" + chosen + ", so @DistributedLock methods "
				+ "cannot be locked. Add an engine to the application: " + ENGINES + "; or define a LockEngine bean; "
				+ "or turn distlock off with distlock.enabled=false.");
	}

}
