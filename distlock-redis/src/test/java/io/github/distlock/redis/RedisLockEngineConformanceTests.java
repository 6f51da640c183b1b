package io.github.distlock.redis;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.distlock.LockLostListener;
import io.github.distlock.conformance.AbstractLockEngineConformanceTests;
import io.github.distlock.engine.LockEngine;
import io.github.distlock.fixtures.redis.RedisExtension;
import io.github.distlock.fixtures.redis.RespClient;

/**
 * The engine conformance suite on a real redis-server.
 */
class RedisLockEngineConformanceTests extends AbstractLockEngineConformanceTests {

	@RegisterExtension
	static final RedisExtension redis = RedisExtension.anyServer();

	private final ConformanceEngines engines = new ConformanceEngines();

	@Override
	protected LockEngine newEngine(LockLostListener listener) {
		return this.engines.create(redis, listener);
	}

	@Override
	protected void crash(LockEngine engine) {
		this.engines.crash(engine);
	}

	@Override
	protected boolean lockExists(String name, String key) {
		try (RespClient client = redis.client()) {
			return client.get(new RedisLockKeys("distlock").lockKey(name, key)) != null;
		}
	}

	@Override
	protected void deleteLock(String name, String key) {
		try (RespClient client = redis.client()) {
			client.call("DEL", new RedisLockKeys("distlock").lockKey(name, key));
		}
	}

	@Override
	protected void awaitWaiterQueued(String key) throws Exception {
		// A waiter that failed once marks the lock ("|w") so the holder's release is published.
		try (RespClient client = redis.client()) {
			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
			while (System.nanoTime() < deadline) {
				String value = client.get("distlock:{conformance:" + key + "}");
				if (value != null && value.endsWith("|w")) {
					return;
				}
				Thread.sleep(5);
			}
		}
		throw new AssertionError("No waiter queued on " + key);
	}

}
