package io.github.distlock.testing;

import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;

import io.github.distlock.testing.redis.EmbeddedRedisServer;

/**
 * The test context's own server as Spring Boot's Redis connection: standalone, no credentials, no TLS. Whatever
 * {@code spring.data.redis.*} or a service connection says, clients built from connection details go there.
 */
final class EmbeddedRedisConnectionDetails implements DataRedisConnectionDetails {

	private final EmbeddedRedisServer server;

	EmbeddedRedisConnectionDetails(EmbeddedRedisServer server) {
		this.server = server;
	}

	@Override
	public Standalone getStandalone() {
		return Standalone.of(this.server.host(), this.server.port());
	}

}
