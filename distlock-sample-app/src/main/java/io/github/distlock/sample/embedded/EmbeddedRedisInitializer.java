package io.github.distlock.sample.embedded;

import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The sample's dev convenience, never part of the starter: when the user configured no Redis, the sample runs a
 * real {@code redis-server} for itself (from the PATH, else the binary inside embedded-redis), so that
 * {@code spring-boot:run} works on a machine without Redis. Switch it off with
 * {@code sample.embedded-redis.enabled=false}; distlock then needs a Redis as in any other application.
 * <p>
 * Registered in {@code META-INF/spring.factories}, so it applies to every {@code SpringApplication} of the sample,
 * including tests.
 */
public class EmbeddedRedisInitializer implements ApplicationContextInitializer<ConfigurableApplicationContext> {

	/** Whether the sample may start its own Redis; true unless set to false. */
	public static final String ENABLED_PROPERTY = "sample.embedded-redis.enabled";

	/** The port of the sample's own Redis; 0 (the default) picks a free one. */
	public static final String PORT_PROPERTY = "sample.embedded-redis.port";

	@Override
	public void initialize(ConfigurableApplicationContext context) {
		if (context.getEnvironment().getProperty(ENABLED_PROPERTY, Boolean.class, true)) {
			context.addBeanFactoryPostProcessor(new EmbeddedRedisStarter(context.getEnvironment()));
		}
	}

}
