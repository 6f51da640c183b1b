package io.github.distlock.redis;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.distlock.LockLostListener;
import io.github.distlock.engine.LockEngine;
import io.github.distlock.fixtures.redis.RedisExtension;
import io.github.distlock.fixtures.redis.RespClient;
import io.github.distlock.conformance.AbstractSharedLockConformanceTests;

/**
 * The read/write lock and permit conformance suite on a real redis-server.
 */
class RedisSharedLockConformanceTests extends AbstractSharedLockConformanceTests {

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

	private static String base(String name, String key, boolean permits) {
		return new RedisLockKeys("distlock").lockKey(name, key) + (permits ? ":permits" : ":rw");
	}

	@Override
	protected void removeHolders(String name, String key, boolean permits) {
		String base = base(name, key, permits);
		try (RespClient client = redis.client()) {
			client.call("DEL", base, base + (permits ? ":holders" : ":readers"));
		}
	}

	@Override
	protected void awaitQueued(String name, String key, boolean permits, int waiters) throws Exception {
		String queue = RedisLockKeys.queueKey(base(name, key, permits));
		try (RespClient client = redis.client()) {
			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
			while (System.nanoTime() < deadline) {
				if (Long.parseLong(String.valueOf(client.call("ZCARD", queue))) >= waiters) {
					return;
				}
				Thread.sleep(5);
			}
		}
		throw new AssertionError("Fewer than " + waiters + " waiters queued on " + queue);
	}

}
