package io.github.distlock.benchmarks.systems;

import java.util.ArrayList;
import java.util.List;

import org.springframework.integration.redis.util.RedisLockRegistry.RedisLockType;

/**
 * Every system compared, in table order, built for one Redis server. The harness and its worker processes build
 * them the same way, so that a system in another JVM is the same system.
 */
public final class SystemCatalog {

	private SystemCatalog() {
	}

	public static List<LockSystem> all(String host, int port, LockSettings locks) {
		String url = "redis://" + host + ":" + port;
		List<LockSystem> systems = new ArrayList<>();
		systems.add(new AnnotatedLockSystem(host, port, locks));
		systems.add(new EngineLockSystem(url, locks));
		systems.add(new RedissonLockSystem(url, locks));
		systems.add(new RegistryLockSystem(host, port, RedisLockType.SPIN_LOCK, locks));
		systems.add(new RegistryLockSystem(host, port, RedisLockType.PUB_SUB_LOCK, locks));
		return systems;
	}

	/** The one system of that name; the others are closed unused (they connect only on first use). */
	public static LockSystem named(String name, String host, int port, LockSettings locks) {
		LockSystem found = null;
		for (LockSystem system : all(host, port, locks)) {
			if (system.name().equals(name)) {
				found = system;
			}
			else {
				system.close();
			}
		}
		if (found == null) {
			throw new IllegalArgumentException("No lock system named " + name);
		}
		return found;
	}

}
