package io.github.distlock.redis;

import java.time.Duration;

import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import io.github.distlock.test.RedisServer;

/** Redisson clients for engine tests, one per simulated application instance. */
final class RedisTestClients {

	private RedisTestClients() {
	}

	static RedissonClient create(RedisServer server, Duration timeout) {
		Config config = config(server.url(), timeout);
		config.setUsername(server.username());
		config.setPassword(server.password());
		return Redisson.create(config);
	}

	static RedissonClient create(String url, Duration timeout) {
		return Redisson.create(config(url, timeout));
	}

	static Config config(String url, Duration timeout) {
		Config config = new Config();
		config.setThreads(4);
		config.setNettyThreads(4);
		config.useSingleServer()
			.setAddress(url)
			.setTimeout((int) timeout.toMillis())
			.setConnectionMinimumIdleSize(2)
			.setConnectionPoolSize(16)
			.setSubscriptionConnectionMinimumIdleSize(1);
		return config;
	}

}
