package io.github.distlock.autoconfigure;

import java.time.Duration;
import java.util.List;

import org.jspecify.annotations.Nullable;
import org.redisson.config.BaseConfig;
import org.redisson.config.Config;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.data.redis.autoconfigure.DataRedisProperties;
import org.springframework.boot.ssl.SslBundle;

/**
 * Translates Spring Boot's Redis settings ({@code spring.data.redis.*}, or connection details from a service
 * connection) into a Redisson configuration, so that an application configures Redis once: a single server, a
 * Sentinel-managed master, or a Redis Cluster, each with the same credentials, TLS and timeouts.
 * <p>
 * The client is sized for lock traffic: short script calls, one at a time per locking thread. Redisson keeps 24
 * connections open by default and hands out the idle one that has rested longest, so each call lands on a connection
 * whose I/O thread is asleep and must be woken; with a few connections kept, calls reuse connections whose threads
 * are awake. More connections are still opened under load, up to Redisson's pool size of 64.
 */
final class DataRedisRedissonConfig {

	/** Connections kept open while idle, per Redis server. */
	static final int MIN_IDLE_CONNECTIONS = 4;

	/**
	 * How often the cluster client reads the cluster's topology. Redisson learns of a replica promoted in place of a
	 * master that died (no MOVED tells it then) only at its next scan, and until then fails every call for that
	 * master's slots: its 5 s default would cost held locks there up to 5 s of failed renewals after the cluster had
	 * recovered. One {@code CLUSTER NODES} a second per client costs next to nothing.
	 */
	static final int CLUSTER_SCAN_MILLIS = 1000;

	private DataRedisRedissonConfig() {
	}

	static Config create(DataRedisConnectionDetails details, DataRedisProperties properties) {
		Config config = new Config();
		SslBundle sslBundle = details.getSslBundle();
		boolean ssl = sslBundle != null || properties.getSsl().isEnabled();
		String scheme = ssl ? "rediss://" : "redis://";
		BaseConfig<?> server;
		if (details.getSentinel() != null) {
			DataRedisConnectionDetails.Sentinel sentinel = details.getSentinel();
			server = config.useSentinelServers()
				.setMasterName(sentinel.getMaster())
				.setDatabase(sentinel.getDatabase())
				.setSentinelUsername(sentinel.getUsername())
				.setSentinelPassword(password(sentinel.getPassword()))
				.setMasterConnectionMinimumIdleSize(MIN_IDLE_CONNECTIONS)
				.setSlaveConnectionMinimumIdleSize(MIN_IDLE_CONNECTIONS)
				.addSentinelAddress(addresses(scheme, sentinel.getNodes()));
		}
		else if (details.getCluster() != null) {
			// The nodes are seeds: Redisson finds every master and replica from them, and follows MOVED and ASK
			// itself (spring.data.redis.cluster.max-redirects has no Redisson counterpart). No database: a cluster
			// has only database 0.
			server = config.useClusterServers()
				.setScanInterval(CLUSTER_SCAN_MILLIS)
				.setMasterConnectionMinimumIdleSize(MIN_IDLE_CONNECTIONS)
				.setSlaveConnectionMinimumIdleSize(MIN_IDLE_CONNECTIONS)
				.addNodeAddress(addresses(scheme, details.getCluster().getNodes()));
		}
		else if (details.getMasterReplica() != null) {
			throw new IllegalStateException("distlock cannot build a Redis client from spring.data.redis.masterreplica;"
					+ " define a RedissonClient bean or point distlock.redis.config at a Redisson YAML file");
		}
		else {
			DataRedisConnectionDetails.Standalone standalone = details.getStandalone();
			if (standalone == null) {
				throw new IllegalStateException("spring.data.redis names no Sentinel, no Cluster and no single "
						+ "server: define a RedissonClient bean or point distlock.redis.config at a Redisson YAML file");
			}
			server = config.useSingleServer()
				.setAddress(scheme + standalone.getHost() + ":" + standalone.getPort())
				.setDatabase(standalone.getDatabase())
				.setConnectionMinimumIdleSize(MIN_IDLE_CONNECTIONS);
		}
		config.setUsername(details.getUsername());
		config.setPassword(password(details.getPassword()));
		setMillis(properties.getTimeout(), server::setTimeout);
		setMillis(properties.getConnectTimeout(), server::setConnectTimeout);
		if (properties.getClientName() != null) {
			server.setClientName(properties.getClientName());
		}
		if (sslBundle != null) {
			// On the configuration, where Redisson 4.7 reads them (on the server settings it logs a deprecation).
			config.setSslTrustManagerFactory(sslBundle.getManagers().getTrustManagerFactory());
			config.setSslKeyManagerFactory(sslBundle.getManagers().getKeyManagerFactory());
		}
		return config;
	}

	/**
	 * No password when it is empty, as Spring Data Redis has it: {@code password: ${REDIS_PASSWORD:}} with the
	 * variable unset must connect to a Redis that asks for none, not send an empty AUTH.
	 */
	static @Nullable String password(@Nullable String password) {
		return (password == null || password.isBlank()) ? null : password;
	}

	private static String[] addresses(String scheme, List<DataRedisConnectionDetails.Node> nodes) {
		return nodes.stream().map((node) -> scheme + node.host() + ":" + node.port()).toArray(String[]::new);
	}

	private static void setMillis(@Nullable Duration duration, java.util.function.IntConsumer setter) {
		if (duration != null) {
			setter.accept((int) Math.min(Integer.MAX_VALUE, duration.toMillis()));
		}
	}

}
