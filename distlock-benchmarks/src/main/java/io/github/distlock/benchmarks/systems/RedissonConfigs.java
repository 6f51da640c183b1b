package io.github.distlock.benchmarks.systems;

import java.time.Duration;

import org.redisson.config.Config;

/**
 * Redisson configurations as an application gets them by default: one server, Redisson's own pool sizes and timeouts.
 * The distlock clients get exactly what distlock's auto-configuration builds from {@code spring.data.redis.*}.
 */
final class RedissonConfigs {

	private RedissonConfigs() {
	}

	static Config singleServer(String url) {
		Config config = new Config();
		config.useSingleServer().setAddress(url);
		return config;
	}

	/**
	 * For the engine: the client distlock's auto-configuration builds from {@code spring.data.redis.*}, which keeps
	 * 4 idle connections instead of Redisson's 24 ({@code DataRedisRedissonConfig.MIN_IDLE_CONNECTIONS}).
	 */
	static Config distlockClient(String url) {
		Config config = new Config();
		config.useSingleServer().setAddress(url).setConnectionMinimumIdleSize(4);
		return config;
	}

	/** For RLock: its watchdog keeps the same lease as every other system's renewal. */
	static Config singleServerWithWatchdog(String url, Duration lease) {
		return singleServer(url).setLockWatchdogTimeout(lease.toMillis());
	}

}
