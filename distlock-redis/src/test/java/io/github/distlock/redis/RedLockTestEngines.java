package io.github.distlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.client.RedisConnectionException;
import org.redisson.config.Config;

import io.github.distlock.LockLostListener;
import io.github.distlock.engine.LockEngine;
import io.github.distlock.fixtures.redis.RedLockMastersExtension;
import io.github.distlock.fixtures.redis.RedisProcess;
import io.github.distlock.fixtures.redis.RespClient;

/**
 * RedLock engines for tests: each on Redisson clients of its own, one per master, as a separate application
 * instance's would be, and "crashed" by closing it without releasing its locks.
 */
final class RedLockTestEngines {

	static final Duration NODE_TIMEOUT = Duration.ofMillis(200);

	/**
	 * How long a new client may keep trying to connect to a master that is up. Creating it is not what the tests
	 * measure, and its first connection, bounded by the node timeout like every call, took longer than that on a busy
	 * machine (a build beside this module's tests): the client creation failed before any fault was injected.
	 */
	private static final Duration CONNECT_PATIENCE = Duration.ofSeconds(10);

	private final Map<LockEngine, List<RedissonClient>> clients = new IdentityHashMap<>();

	private final List<RedLockEngine> engines = new ArrayList<>();

	RedLockEngine create(RedLockMastersExtension masters, LockLostListener lost) {
		List<RedissonClient> perMaster = new ArrayList<>();
		for (RedisProcess master : masters.servers()) {
			perMaster.add(connect(master));
		}
		RedLockEngine engine = new RedLockEngine(perMaster, "distlock", NODE_TIMEOUT,
				RedLockEngine.DEFAULT_RETRY_DELAY, lost);
		this.clients.put(engine, perMaster);
		this.engines.add(engine);
		return engine;
	}

	/** A client of a master that is up, tried again while its first connection times out. */
	private static RedissonClient connect(RedisProcess master) {
		long deadline = System.nanoTime() + CONNECT_PATIENCE.toNanos();
		while (true) {
			try {
				return Redisson.create(config(master));
			}
			catch (RedisConnectionException ex) {
				if (!master.isAlive() || System.nanoTime() - deadline > 0) {
					throw ex;
				}
			}
		}
	}

	/** A client that gives up on a master soon: a killed one must not hold up the others. */
	static Config config(RedisProcess master) {
		Config config = new Config();
		config.setThreads(2);
		config.setNettyThreads(4);
		config.useSingleServer()
			.setAddress(master.url())
			.setTimeout((int) NODE_TIMEOUT.toMillis())
			.setConnectTimeout((int) NODE_TIMEOUT.toMillis())
			.setRetryAttempts(0)
			.setConnectionMinimumIdleSize(1)
			.setConnectionPoolSize(16)
			.setSubscriptionConnectionMinimumIdleSize(1);
		return config;
	}

	void crash(LockEngine engine) {
		((RedLockEngine) engine).close();
		this.engines.remove(engine);
		List<RedissonClient> perMaster = this.clients.remove(engine);
		if (perMaster != null) {
			perMaster.forEach((client) -> client.shutdown(0, 2, TimeUnit.SECONDS));
		}
	}

	/** Whether any engine made here has a caller waiting now. */
	boolean anyWaiting() {
		return this.engines.stream().anyMatch((engine) -> engine.waitingCount() > 0);
	}

	/** How many masters hold the lock now, read without the engine. */
	static int holders(RedLockMastersExtension masters, String name, String key) {
		String lockKey = new RedisLockKeys("distlock").lockKey(name, key);
		int holders = 0;
		for (RedisProcess master : masters.servers()) {
			if (master.isAlive()) {
				try (RespClient client = master.client()) {
					holders += (client.get(lockKey) != null) ? 1 : 0;
				}
			}
		}
		return holders;
	}

	static void onEachMaster(RedLockMastersExtension masters, int count, String... command) {
		for (int i = 0; i < count; i++) {
			try (RespClient client = masters.get(i).client()) {
				client.call((Object[]) command);
			}
		}
	}

}
