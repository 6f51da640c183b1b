package io.github.distlock.autoconfigure;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.github.distlock.fixtures.redis.RedisExtension;

/** Application contexts as users get them from the starter: Boot's Redis settings, AOP and distlock on Redis. */
final class LockContexts {

	private LockContexts() {
	}

	/** A runner of such contexts on the test's Redis, connecting as the user the fixture gives. */
	static ApplicationContextRunner onRedis(RedisExtension redis) {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DataRedisAutoConfiguration.class,
					RedisLockEngineAutoConfiguration.class, DistLockAutoConfiguration.class))
			.withPropertyValues(redis.springProperties());
	}

}
