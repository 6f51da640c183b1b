package io.github.distlock.autoconfigure;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.springframework.boot.ssl.SslBundle;

import io.github.distlock.redis.RedLockStartupCheck;

/**
 * One Redisson client per RedLock master, built from {@code distlock.redlock.*} and shut down with the context.
 * <p>
 * Every client is lazy: a master that is down at start-up is connected to when it comes back, and costs the
 * others nothing. Commands are never retried: one node timeout is all a master gets per call.
 */
final class RedLockClients implements AutoCloseable {

	private final List<RedissonClient> clients;

	private final List<Boolean> reachable;

	private RedLockClients(List<RedissonClient> clients, List<Boolean> reachable) {
		this.clients = clients;
		this.reachable = reachable;
	}

	/**
	 * Checks the masters ({@link RedLockStartupCheck}) and builds their clients.
	 * @param sslBundle the trust (and key) material of {@code rediss://} masters, or null for the JVM's defaults
	 * @throws io.github.distlock.LockStoreConnectionException when a master refuses, or no majority can be reached
	 */
	static RedLockClients connect(RedLockProperties settings, @Nullable SslBundle sslBundle) {
		List<Config> configs = settings.getNodes()
			.stream()
			.map((node) -> config(node.strip(), settings, sslBundle))
			.toList();
		List<Boolean> reachable = RedLockStartupCheck.connect(configs);
		List<RedissonClient> clients = new ArrayList<>();
		for (Config config : configs) {
			clients.add(Redisson.create(config));
		}
		return new RedLockClients(clients, reachable);
	}

	static Config config(String node, RedLockProperties settings, @Nullable SslBundle sslBundle) {
		Config config = new Config();
		config.setLazyInitialization(true);
		config.setUsername(settings.getUsername());
		config.setPassword(DataRedisRedissonConfig.password(settings.getPassword()));
		config.useSingleServer()
			.setAddress(node)
			.setTimeout(millis(settings.getNodeTimeout()))
			.setConnectTimeout(millis(settings.getConnectTimeout()))
			.setRetryAttempts(0)
			.setConnectionMinimumIdleSize(DataRedisRedissonConfig.MIN_IDLE_CONNECTIONS)
			.setClientName(settings.getClientName());
		if (sslBundle != null) {
			// On the configuration, where Redisson 4.7 reads them (on the server settings it logs a deprecation).
			config.setSslTrustManagerFactory(sslBundle.getManagers().getTrustManagerFactory());
			config.setSslKeyManagerFactory(sslBundle.getManagers().getKeyManagerFactory());
		}
		return config;
	}

	private static int millis(java.time.Duration duration) {
		return (int) Math.min(Integer.MAX_VALUE, duration.toMillis());
	}

	List<RedissonClient> clients() {
		return this.clients;
	}

	/** Whether each master answered at start-up. */
	List<Boolean> reachable() {
		return this.reachable;
	}

	@Override
	public void close() {
		this.clients.forEach((client) -> client.shutdown(0, 2, TimeUnit.SECONDS));
	}

}
