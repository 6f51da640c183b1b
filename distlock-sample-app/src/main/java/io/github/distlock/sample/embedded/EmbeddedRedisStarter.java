package io.github.distlock.sample.embedded;

import java.util.Map;
import java.util.Optional;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

import io.github.distlock.testing.redis.EmbeddedRedisServer;
import io.github.distlock.testing.redis.RedisBinary;

/**
 * Starts the sample's own Redis when the user configured none, and points Spring Boot's Redis settings at it.
 * <p>
 * It runs as a bean factory post-processor because that is the one moment when both things it must check are known
 * (the settings, and every bean definition, so a user's {@code RedissonClient} bean) and no bean has read the Redis
 * settings yet.
 */
final class EmbeddedRedisStarter implements BeanFactoryPostProcessor {

	/** The bean under which the running server is registered, so the context stops it when it closes. */
	static final String BEAN_NAME = "sampleEmbeddedRedis";

	/** The property source that carries the server's address. */
	static final String PROPERTY_SOURCE_NAME = "sampleEmbeddedRedis";

	private static final Log logger = LogFactory.getLog(EmbeddedRedisStarter.class);

	private final ConfigurableEnvironment environment;

	EmbeddedRedisStarter(ConfigurableEnvironment environment) {
		this.environment = environment;
	}

	@Override
	public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) {
		Optional<String> configured = ConfiguredRedis.find(this.environment, beanFactory);
		if (configured.isPresent()) {
			logger.info("Redis is configured (" + configured.get() + "): the sample starts no Redis of its own");
			return;
		}
		int port = this.environment.getProperty(EmbeddedRedisInitializer.PORT_PROPERTY, Integer.class, 0);
		EmbeddedRedisServer server = start(port);
		// Also stops the server when the context fails to start.
		server.bindTo(beanFactory, BEAN_NAME);
		// Lowest precedence: only reached because nothing above it sets these keys.
		this.environment.getPropertySources()
			.addLast(new MapPropertySource(PROPERTY_SOURCE_NAME,
					Map.of("spring.data.redis.host", server.host(), "spring.data.redis.port", server.port())));
		logger.info("No Redis configured: started the sample's embedded Redis on " + server.host() + ":"
				+ server.port() + " with " + server.description() + ". Set spring.data.redis.host to use your own"
				+ " Redis, or " + EmbeddedRedisInitializer.ENABLED_PROPERTY + "=false to start none.");
	}

	private static EmbeddedRedisServer start(int port) {
		try {
			return EmbeddedRedisServer.start(RedisBinary.locate(System.getenv("PATH")), port);
		}
		catch (IllegalStateException ex) {
			throw new IllegalStateException("The sample could not start a Redis of its own: " + ex.getMessage()
					+ " Or point spring.data.redis.host and spring.data.redis.port at a Redis.", ex);
		}
	}

}
