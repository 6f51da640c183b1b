package io.github.distlock.sample;

import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import io.github.distlock.fixtures.redis.RedisExtension;

/**
 * A test class of the sample served on a random port, with its locks in a real Redis server of the class's own
 * (started before its context, stopped after its tests).
 */
// The Redis server belongs to the class: its context must not be reused by another after the server is gone.
@DirtiesContext
abstract class OnRedisOfItsOwn {

	@RegisterExtension
	static final RedisExtension redis = RedisExtension.anyServer();

	@DynamicPropertySource
	static void redisProperties(DynamicPropertyRegistry registry) {
		registry.add("spring.data.redis.host", redis::host);
		registry.add("spring.data.redis.port", redis::port);
	}

	@LocalServerPort
	int port;

}
