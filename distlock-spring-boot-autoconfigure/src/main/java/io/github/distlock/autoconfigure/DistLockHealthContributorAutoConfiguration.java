package io.github.distlock.autoconfigure;

import org.redisson.api.RedissonClient;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.github.distlock.actuate.DistLockHealthIndicator;
import io.github.distlock.redis.EvictionPolicyReader;
import io.github.distlock.redis.RedisLockEngine;

/**
 * The {@code distlock} health contributor, unless {@code management.health.distlock.enabled=false}.
 */
@AutoConfiguration(after = DistLockAutoConfiguration.class)
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnBean(RedisLockEngine.class)
public final class DistLockHealthContributorAutoConfiguration {

	/** Nested, so that its condition (from the health module) is read only once that module is known present. */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnEnabledHealthIndicator("distlock")
	static class HealthIndicatorConfiguration {

		@Bean
		@ConditionalOnMissingBean(name = "distlockHealthIndicator")
		DistLockHealthIndicator distlockHealthIndicator(RedisLockEngine engine, DistLockProperties properties,
				ObjectProvider<RedissonClient> redissonClient) {
			// Read on every check, so a policy fixed with CONFIG SET shows without a restart.
			RedissonClient client = redissonClient.getIfUnique();
			EvictionPolicyReader evictionPolicy = (client != null)
					? new EvictionPolicyReader(client, properties.getHealth().getTimeout()) : null;
			return new DistLockHealthIndicator(engine, properties.getHealth().getTimeout(),
					properties.getHealth().getMaxRenewalLag(), evictionPolicy);
		}

	}

}
