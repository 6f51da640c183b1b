package io.github.distlock.autoconfigure;

import java.time.Duration;

import org.redisson.api.RedissonClient;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Import;

import io.github.distlock.LockLostListener;
import io.github.distlock.engine.LockEngine;
import io.github.distlock.redis.EvictionPolicyReader;
import io.github.distlock.redis.EvictionPolicyWarning;
import io.github.distlock.redis.RedisLockEngine;
import io.github.distlock.redis.RedisStartupCheck;
import io.github.distlock.redis.ReplicaAcknowledgement;

/**
 * The Redis lock engine, when {@code distlock-redis} and Redisson are on the class path and
 * {@code distlock.backend} is {@code redis} or unset with no other engine present: on the application's {@link RedissonClient}, or one built from
 * a Redisson file ({@code distlock.redis.config}) or Spring Boot's Redis settings. The connection is checked before
 * the first lock ({@link RedisStartupCheck}). With {@code distlock.redlock.nodes} set, the RedLock engine takes its place
 * ({@link RedLockEngineAutoConfiguration}).
 */
@AutoConfiguration(before = DistLockAutoConfiguration.class,
		afterName = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration")
@ConditionalOnClass({ RedissonClient.class, RedisLockEngine.class })
@ConditionalOnBooleanProperty(name = "distlock.enabled", matchIfMissing = true)
@ConditionalOnLockBackend(LockBackend.REDIS)
@Conditional(RedLockConditions.NodesUnset.class)
@EnableConfigurationProperties(DistLockProperties.class)
@Import({ RedissonFromYamlConfiguration.class, RedissonFromDataRedisConfiguration.class })
public final class RedisLockEngineAutoConfiguration {

	/** The longest start-up waits to learn Redis's eviction policy. */
	private static final Duration EVICTION_CHECK_TIMEOUT = Duration.ofSeconds(2);

	@Bean(destroyMethod = "close")
	@ConditionalOnMissingBean(LockEngine.class)
	RedisLockEngine distLockEngine(ObjectProvider<RedissonClient> redissonClient, DistLockProperties properties,
			ObjectProvider<LockLostListener> listeners) {
		RedissonClient client = redissonClient.getIfUnique();
		if (client == null) {
			throw new IllegalStateException("distlock needs a Redis connection: set spring.data.redis.host and "
					+ "spring.data.redis.port, point distlock.redis.config at a Redisson YAML file, or define one "
					+ "RedissonClient bean");
		}
		RedisStartupCheck.verify(client, properties.redisKeyPrefix());
		EvictionPolicyWarning.check(new EvictionPolicyReader(client, EVICTION_CHECK_TIMEOUT));
		RedisLockProperties redis = properties.getRedis();
		return new RedisLockEngine(client, properties.redisKeyPrefix(), null,
				(lost) -> DistLockAutoConfiguration.notifyAll(listeners, lost), RedisLockEngine.DEFAULT_MAX_POLL,
				new ReplicaAcknowledgement(redis.getMinReplicasAcked(), redis.getReplicaAckTimeout()));
	}

}
