package io.github.distlock.testing;

import java.io.File;
import java.util.Map;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.Environment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.MergedContextConfiguration;

import io.github.distlock.testing.redis.EmbeddedRedisServer;
import io.github.distlock.testing.redis.RedisBinary;

/**
 * Starts the test context's own {@code redis-server} and points the context's Redis settings at it, before any bean
 * exists. The server is a singleton of the context, so it stops when the context closes or fails to start.
 * <p>
 * It runs here, as a context customizer, rather than in a configuration class: the settings must be in place before
 * the first bean reads them, and the process must exist for the context it belongs to, not for each test.
 */
final class EmbeddedRedisContextCustomizer implements ContextCustomizer {

	/** The path of the {@code redis-server} to run instead of searching for one. */
	static final String BINARY_PROPERTY = "distlock.test.redis-server";

	/** The bean under which the running server is registered. */
	static final String BEAN_NAME = "distLockEmbeddedRedis";

	/** The property source, first of all, that points the Redis settings at the server. */
	static final String PROPERTY_SOURCE_NAME = "distLockEmbeddedRedis";

	private static final Log logger = LogFactory.getLog(EmbeddedRedisContextCustomizer.class);

	@Override
	public void customizeContext(ConfigurableApplicationContext context, MergedContextConfiguration config) {
		ConfigurableEnvironment environment = context.getEnvironment();
		EmbeddedRedisServer server = start(environment);
		server.bindTo(context.getBeanFactory(), BEAN_NAME);
		environment.getPropertySources().addFirst(new MapPropertySource(PROPERTY_SOURCE_NAME, settings(server)));
		logger.info("Started redis-server for the test context on " + server.host() + ":" + server.port() + " with "
				+ server.description() + "; spring.data.redis.* point at it");
	}

	private static EmbeddedRedisServer start(Environment environment) {
		try {
			RedisBinary binary = binary(environment);
			try {
				return EmbeddedRedisServer.start(binary, 0);
			}
			catch (IllegalStateException ex) {
				throw new IllegalStateException(ex.getMessage() + ". " + RedisBinary.INSTALL_ADVICE + ", or point "
						+ BINARY_PROPERTY + " at a redis-server that runs on this machine.", ex);
			}
		}
		catch (IllegalStateException ex) {
			throw new IllegalStateException("@AutoConfigureDistLock could not start a redis-server for this test "
					+ "context, and uses no other Redis instead: " + ex.getMessage(), ex);
		}
	}

	private static RedisBinary binary(Environment environment) {
		String configured = environment.getProperty(BINARY_PROPERTY);
		if (configured != null && !configured.isBlank()) {
			return RedisBinary.at(new File(configured), BINARY_PROPERTY);
		}
		return RedisBinary.locate(System.getenv("PATH"));
	}

	/**
	 * Spring Boot's Redis settings for the server. The URL is set too, since it wins over host and port; Sentinel,
	 * Cluster and credentials cannot be unset by a property, so the connection details bean of
	 * {@link DistLockTestAutoConfiguration} replaces them all.
	 */
	private static Map<String, Object> settings(EmbeddedRedisServer server) {
		return Map.of("spring.data.redis.host", server.host(), "spring.data.redis.port", server.port(),
				"spring.data.redis.url", "redis://" + server.host() + ":" + server.port(),
				"spring.data.redis.ssl.enabled", false,
				// A Redisson file would win over spring.data.redis.*; "false" is the one value for which the
				// @ConditionalOnProperty of distlock's file-based client does not match.
				"distlock.redis.config", "false");
	}

	/** Every context with the annotation gets the same customization, so such contexts may be shared. */
	@Override
	public boolean equals(@Nullable Object other) {
		return other != null && other.getClass() == getClass();
	}

	@Override
	public int hashCode() {
		return getClass().hashCode();
	}

}
