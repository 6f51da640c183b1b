package io.github.distlock.shedlock;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import io.github.distlock.engine.HeldLockView;
import io.github.distlock.redis.RedisLockEngine;
import io.github.distlock.redis.RedisLockKeys;
import io.github.distlock.fixtures.redis.RedisExtension;
import io.github.distlock.fixtures.redis.RespClient;

/**
 * The provider on the Redis engine and a real redis-server.
 */
class RedisDistLockLockProviderIntegrationTests extends DistLockLockProviderIntegrationTests {

	@RegisterExtension
	static final RedisExtension redis = RedisExtension.anyServer();

	private static final RedisLockKeys keys = new RedisLockKeys("distlock");

	private static RedissonClient client;

	private static RedisLockEngine engine;

	private static DistLockLockProvider provider;

	@BeforeAll
	static void startEngine() {
		Config config = new Config();
		config.setUsername(redis.server().username());
		config.setPassword(redis.server().password());
		config.useSingleServer().setAddress(redis.url()).setTimeout(3000);
		client = Redisson.create(config);
		engine = new RedisLockEngine(client, "distlock", null, lost::add);
		provider = new DistLockLockProvider(engine);
	}

	@AfterAll
	static void stopEngine() {
		provider.close();
		// The kit leaves some locks held on purpose (extended for 10 s and never unlocked, or released to expire at
		// the end of a 9 s lockAtLeastFor); the Redis fixture fails a class that leaves lock keys behind.
		for (HeldLockView held : engine.heldLocks()) {
			engine.forceRelease(held.name(), held.key());
		}
		try (RespClient admin = redis.client()) {
			for (String key : admin.keys("distlock:{shedlock:*")) {
				admin.call("DEL", key);
			}
		}
		engine.close();
		client.shutdown(0, 2, TimeUnit.SECONDS);
	}

	@Override
	protected DistLockLockProvider provider() {
		return provider;
	}

	@Override
	protected boolean isLockedInStore(String lockName) {
		try (RespClient resp = redis.client()) {
			return resp.get(keys.lockKey(DistLockLockProvider.DEFAULT_NAME, lockName)) != null;
		}
	}

}
