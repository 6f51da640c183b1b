package io.github.distlock.testing;

import org.redisson.api.RedissonClient;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;

import io.github.distlock.autoconfigure.DistLockProperties;
import io.github.distlock.engine.LockEngine;
import io.github.distlock.redis.RedisLockEngine;
import io.github.distlock.testing.redis.EmbeddedRedisServer;

/**
 * What {@link AutoConfigureDistLock} adds to a test context whose {@code redis-server} the context customizer has
 * started: Redis connection details that lead there and nowhere else, a check that every {@link RedissonClient}
 * does, and {@link DistLocks}. Imported by the annotation only, never by plain auto-configuration.
 */
@AutoConfiguration(beforeName = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration")
public final class DistLockTestAutoConfiguration {

	/** Primary, so that it also wins over a service connection's details (Testcontainers, Docker Compose). */
	@Bean
	@Primary
	DataRedisConnectionDetails distLockEmbeddedRedisConnectionDetails(EmbeddedRedisServer server) {
		return new EmbeddedRedisConnectionDetails(server);
	}

	@Bean
	static EmbeddedRedisOnly distLockEmbeddedRedisOnly(ObjectProvider<EmbeddedRedisServer> server) {
		return new EmbeddedRedisOnly(server);
	}

	@Bean(destroyMethod = "close")
	@ConditionalOnMissingBean
	DistLocks distLocks(ObjectProvider<LockEngine> engine, ObjectProvider<RedissonClient> client,
			ObjectProvider<DistLockProperties> properties) {
		LockEngine lockEngine = engine.getIfUnique();
		RedissonClient redisson = client.getIfUnique();
		if (!(lockEngine instanceof RedisLockEngine redisEngine) || redisson == null) {
			throw new IllegalStateException("@AutoConfigureDistLock tests distlock's Redis engine, but this test "
					+ "context has " + ((lockEngine != null) ? "the lock engine " + lockEngine.getClass().getName()
							: "no single lock engine (distlock.enabled=false, or several LockEngine beans)")
					+ ((redisson == null) ? " and no single RedissonClient" : "")
					+ ": remove distlock.backend or distlock.enabled=false from the test's settings, or leave "
					+ "@AutoConfigureDistLock out of this test");
		}
		String keyPrefix = properties.getObject().redisKeyPrefix();
		return new DistLocks(new StoredLocks(redisson, keyPrefix), redisEngine, new AnotherInstance(redisson, keyPrefix));
	}

}
