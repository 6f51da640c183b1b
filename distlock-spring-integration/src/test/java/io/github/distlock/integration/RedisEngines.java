package io.github.distlock.integration;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import io.github.distlock.LockLostListener;
import io.github.distlock.fixtures.redis.RedisExtension;
import io.github.distlock.redis.RedisLockEngine;

/** Redis engines for a test, each with a client of its own as an instance of an application has; closed together. */
final class RedisEngines implements AutoCloseable {

	private final RedisExtension redis;

	private final List<RedissonClient> clients = new ArrayList<>();

	private final List<RedisLockEngine> engines = new ArrayList<>();

	RedisEngines(RedisExtension redis) {
		this.redis = redis;
	}

	RedisLockEngine create(LockLostListener listener) {
		Config config = new Config();
		config.setUsername(this.redis.server().username());
		config.setPassword(this.redis.server().password());
		config.useSingleServer().setAddress(this.redis.url()).setTimeout(3000);
		RedissonClient client = Redisson.create(config);
		this.clients.add(client);
		RedisLockEngine engine = new RedisLockEngine(client, "distlock", null, listener);
		this.engines.add(engine);
		return engine;
	}

	@Override
	public void close() {
		this.engines.forEach(RedisLockEngine::close);
		this.clients.forEach((client) -> client.shutdown(0, 2, TimeUnit.SECONDS));
	}

}
