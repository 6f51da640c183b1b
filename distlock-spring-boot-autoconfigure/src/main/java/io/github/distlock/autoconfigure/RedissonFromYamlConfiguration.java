package io.github.distlock.autoconfigure;

import java.io.IOException;
import java.io.InputStream;

import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.Resource;
import org.springframework.core.io.ResourceLoader;

import io.github.distlock.redis.RedisStartupCheck;

/**
 * The {@link RedissonClient} built from the Redisson YAML file that {@code distlock.redis.config} names, when the
 * application defines no client of its own. Imported before {@link RedissonFromDataRedisConfiguration}, so the file
 * wins over {@code spring.data.redis.*}.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnMissingBean(RedissonClient.class)
@ConditionalOnProperty("distlock.redis.config")
class RedissonFromYamlConfiguration {

	@Bean(destroyMethod = "shutdown")
	@ConditionalOnMissingBean(RedissonClient.class)
	RedissonClient distLockRedissonClient(DistLockProperties properties, ResourceLoader resourceLoader)
			throws IOException {
		String location = properties.getRedis().getConfig();
		if (location == null) {
			throw new IllegalStateException("distlock.redis.config must name a Redisson YAML file");
		}
		Resource resource = resourceLoader.getResource(location);
		if (!resource.exists()) {
			throw new IllegalStateException(
					"distlock.redis.config points at " + resource.getDescription() + ", which does not exist");
		}
		try (InputStream in = resource.getInputStream()) {
			Config config = Config.fromYAML(in);
			RedisStartupCheck.connect(config);
			return Redisson.create(config);
		}
	}

}
