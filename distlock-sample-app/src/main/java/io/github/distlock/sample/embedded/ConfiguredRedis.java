package io.github.distlock.sample.embedded;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;

import org.redisson.api.RedissonClient;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.core.env.Environment;

/**
 * Finds out whether the user has told the application which Redis to use, in any of the ways distlock accepts. The
 * sample starts its own server only when this finds nothing, so that it never hides a real configuration.
 */
final class ConfiguredRedis {

	/** Spring Boot's Redis settings, any one of which means "this Redis, please". */
	private static final List<String> SETTINGS = List.of("spring.data.redis.url", "spring.data.redis.host",
			"spring.data.redis.port", "spring.data.redis.sentinel.nodes", "spring.data.redis.cluster.nodes",
			"distlock.redis.config");

	/** The client distlock defines itself when the user has none; it is not a user's choice. */
	private static final String DISTLOCK_CLIENT = "distLockRedissonClient";

	/** The connection details Spring Boot derives from spring.data.redis.*, already covered by the settings. */
	private static final String BOOT_CONNECTION_DETAILS = "redisConnectionDetails";

	private ConfiguredRedis() {
	}

	/**
	 * What configures Redis, such as {@code "spring.data.redis.host"} or {@code "RedissonClient bean 'client'"};
	 * empty when nothing does. Names only, never values: a URL may carry a password.
	 */
	static Optional<String> find(Environment environment, ConfigurableListableBeanFactory beanFactory) {
		Binder binder = Binder.get(environment);
		for (String name : SETTINGS) {
			if (binder.bind(name, Bindable.of(String.class)).isBound()
					|| binder.bind(name, Bindable.listOf(String.class)).isBound()) {
				return Optional.of(name);
			}
		}
		Optional<String> client = userBean(beanFactory, RedissonClient.class, DISTLOCK_CLIENT);
		if (client.isPresent()) {
			return client;
		}
		// A service connection (Testcontainers, Docker Compose) supplies its own connection details.
		return userBean(beanFactory, DataRedisConnectionDetails.class, BOOT_CONNECTION_DETAILS);
	}

	private static Optional<String> userBean(ConfigurableListableBeanFactory beanFactory, Class<?> type,
			String ownName) {
		// No eager initialisation: this runs before any bean exists, and must create none.
		return Arrays.stream(beanFactory.getBeanNamesForType(type, true, false))
			.filter((name) -> !name.equals(ownName))
			.findFirst()
			.map((name) -> type.getSimpleName() + " bean '" + name + "'");
	}

}
