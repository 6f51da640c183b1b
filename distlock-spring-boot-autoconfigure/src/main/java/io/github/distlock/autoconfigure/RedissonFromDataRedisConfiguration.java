package io.github.distlock.autoconfigure;

import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.data.redis.autoconfigure.DataRedisProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.github.distlock.redis.RedisStartupCheck;

/**
 * The {@link RedissonClient} built from Spring Boot's Redis settings ({@code spring.data.redis.*} or a service
 * connection), when the application defines no client and names no Redisson file. Never an in-process stand-in:
 * without Redis settings the application does not start.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnMissingBean(RedissonClient.class)
@ConditionalOnClass(DataRedisConnectionDetails.class)
@ConditionalOnBean({ DataRedisConnectionDetails.class, DataRedisProperties.class })
class RedissonFromDataRedisConfiguration {

	@Bean(destroyMethod = "shutdown")
	@ConditionalOnMissingBean(RedissonClient.class)
	RedissonClient distLockRedissonClient(DataRedisConnectionDetails details, DataRedisProperties properties) {
		Config config = DataRedisRedissonConfig.create(details, properties);
		// Fails fast, naming the cause, where Redisson would retry for seconds and bury it.
		RedisStartupCheck.connect(config);
		return Redisson.create(config);
	}

}
