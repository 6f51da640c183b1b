package io.github.distlock.redis;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.distlock.LockLostListener;
import io.github.distlock.engine.LockEngine;
import io.github.distlock.fixtures.redis.RedisClusterExtension;
import io.github.distlock.fixtures.redis.RespClient;
import io.github.distlock.conformance.AbstractLockEngineConformanceTests;

/**
 * The engine conformance suite on a real Redis Cluster of three masters: every script on one lock's slot, waiters
 * woken by the lock's shard channels (the suite's engines poll only every 30 s, so an unheard hand-over would show).
 */
class RedisClusterConformanceTests extends AbstractLockEngineConformanceTests {

	@RegisterExtension
	static final RedisClusterExtension cluster = RedisClusterExtension.masters(3);

	private final ConformanceEngines engines = new ConformanceEngines();

	@Override
	protected LockEngine newEngine(LockLostListener listener) {
		return this.engines.create(cluster, listener);
	}

	@Override
	protected void crash(LockEngine engine) {
		this.engines.crash(engine);
	}

	private static String lockKey(String name, String key) {
		return new RedisLockKeys("distlock").lockKey(name, key);
	}

	@Override
	protected boolean lockExists(String name, String key) {
		try (RespClient client = cluster.cluster().clientFor(lockKey(name, key))) {
			return client.get(lockKey(name, key)) != null;
		}
	}

	@Override
	protected void deleteLock(String name, String key) {
		try (RespClient client = cluster.cluster().clientFor(lockKey(name, key))) {
			client.call("DEL", lockKey(name, key));
		}
	}

	@Override
	protected void awaitWaiterQueued(String key) throws Exception {
		// A waiter that failed once marks the lock ("|w") so the holder's release is published.
		String lockKey = lockKey("conformance", key);
		try (RespClient client = cluster.cluster().clientFor(lockKey)) {
			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
			while (System.nanoTime() < deadline) {
				String value = client.get(lockKey);
				if (value != null && value.endsWith("|w")) {
					return;
				}
				Thread.sleep(5);
			}
		}
		throw new AssertionError("No waiter queued on " + key);
	}

}
