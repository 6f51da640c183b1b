package io.github.distlock.autoconfigure;

import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.github.distlock.fixtures.redis.RedisExtension;

/** {@link AbstractKeySetWaitTests} on a real redis-server. */
class RedisKeySetWaitTests extends AbstractKeySetWaitTests {

	@RegisterExtension
	static final RedisExtension redis = RedisExtension.anyServer();

	@Override
	ApplicationContextRunner runner() {
		return LockContexts.onRedis(redis);
	}

}
