package io.github.distlock.redis;

import java.time.Duration;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.redisson.api.RedissonClient;

import io.github.distlock.LockLostListener;
import io.github.distlock.engine.LockEngine;
import io.github.distlock.fixtures.redis.RedisClusterExtension;
import io.github.distlock.fixtures.redis.RedisExtension;
import io.github.distlock.fixtures.redis.RedisTestClients;

/**
 * The engines of the conformance suites: each on a Redisson client of its own, as a separate application instance's
 * would be, and "crashed" by closing it without releasing its locks.
 */
final class ConformanceEngines {

	private final Map<LockEngine, RedissonClient> clients = new IdentityHashMap<>();

	/** A new engine whose waiters poll only every 30 s, so that a hand-over that was not announced would show. */
	LockEngine create(RedisExtension redis, LockLostListener lost) {
		RedissonClient client = RedisTestClients.create(redis.server(), Duration.ofSeconds(3));
		RedisLockEngine engine = new RedisLockEngine(client, "distlock", null, lost, Duration.ofSeconds(30));
		this.clients.put(engine, client);
		return engine;
	}

	/** As {@link #create(RedisExtension, LockLostListener)}, on a Redis Cluster. */
	LockEngine create(RedisClusterExtension cluster, LockLostListener lost) {
		RedissonClient client = RedisTestClients.create(cluster.cluster(), Duration.ofSeconds(3));
		RedisLockEngine engine = new RedisLockEngine(client, "distlock", null, lost, Duration.ofSeconds(30));
		this.clients.put(engine, client);
		return engine;
	}

	void crash(LockEngine engine) {
		((RedisLockEngine) engine).close();
		RedissonClient client = this.clients.remove(engine);
		if (client != null) {
			client.shutdown(0, 2, TimeUnit.SECONDS);
		}
	}

}
