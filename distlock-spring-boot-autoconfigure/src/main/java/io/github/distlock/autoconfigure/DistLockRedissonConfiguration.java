package io.github.distlock.autoconfigure;

import java.io.IOException;
import java.io.InputStream;

import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.data.redis.autoconfigure.DataRedisProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.io.Resource;
import org.springframework.core.io.ResourceLoader;

/**
 * The {@link RedissonClient} distlock uses when the application defines none: from a Redisson YAML file named by
 * {@code distlock.redis.config}, else from Spring Boot's Redis settings. Never an in-process stand-in: with neither,
 * the application does not start.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnMissingBean(RedissonClient.class)
@Import({ DistLockRedissonConfiguration.FromRedissonYaml.class, DistLockRedissonConfiguration.FromDataRedis.class })
class DistLockRedissonConfiguration {

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnProperty("distlock.redis.config")
	static class FromRedissonYaml {

		@Bean(destroyMethod = "shutdown")
		@ConditionalOnMissingBean(RedissonClient.class)
		RedissonClient distLockRedissonClient(DistLockProperties properties, ResourceLoader resourceLoader)
				throws IOException {
			Resource resource = resourceLoader.getResource(properties.getRedis().getConfig());
			if (!resource.exists()) {
				throw new IllegalStateException(
						"distlock.redis.config points at " + resource.getDescription() + ", which does not exist");
			}
			try (InputStream in = resource.getInputStream()) {
				return Redisson.create(Config.fromYAML(in));
			}
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(DataRedisConnectionDetails.class)
	@ConditionalOnBean({ DataRedisConnectionDetails.class, DataRedisProperties.class })
	static class FromDataRedis {

		@Bean(destroyMethod = "shutdown")
		@ConditionalOnMissingBean(RedissonClient.class)
		RedissonClient distLockRedissonClient(DataRedisConnectionDetails details, DataRedisProperties properties) {
			return Redisson.create(DataRedisRedissonConfig.create(details, properties));
		}

	}

}
