package io.github.distlock.autoconfigure;

import java.time.Duration;
import java.util.List;

import org.redisson.config.BaseConfig;
import org.redisson.config.Config;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.data.redis.autoconfigure.DataRedisProperties;
import org.springframework.boot.ssl.SslBundle;

/**
 * Translates Spring Boot's Redis settings ({@code spring.data.redis.*}, or connection details from a service
 * connection) into a Redisson configuration, so that an application configures Redis once.
 */
final class DataRedisRedissonConfig {

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
				.setSentinelPassword(sentinel.getPassword())
				.addSentinelAddress(addresses(scheme, sentinel.getNodes()));
		}
		else if (details.getCluster() != null) {
			throw new IllegalStateException("distlock does not support Redis Cluster yet (spring.data.redis.cluster.*):"
					+ " its scripts touch a lock and its waiter queue, which Cluster may place on different nodes;"
					+ " use a standalone or Sentinel-managed Redis for locks");
		}
		else if (details.getMasterReplica() != null) {
			throw new IllegalStateException("distlock cannot build a Redis client from spring.data.redis.masterreplica;"
					+ " define a RedissonClient bean or point distlock.redis.config at a Redisson YAML file");
		}
		else {
			DataRedisConnectionDetails.Standalone standalone = details.getStandalone();
			server = config.useSingleServer()
				.setAddress(scheme + standalone.getHost() + ":" + standalone.getPort())
				.setDatabase(standalone.getDatabase());
		}
		config.setUsername(details.getUsername());
		config.setPassword(details.getPassword());
		setMillis(properties.getTimeout(), server::setTimeout);
		setMillis(properties.getConnectTimeout(), server::setConnectTimeout);
		if (properties.getClientName() != null) {
			server.setClientName(properties.getClientName());
		}
		if (sslBundle != null) {
			server.setSslTrustManagerFactory(sslBundle.getManagers().getTrustManagerFactory());
			server.setSslKeyManagerFactory(sslBundle.getManagers().getKeyManagerFactory());
		}
		return config;
	}

	private static String[] addresses(String scheme, List<DataRedisConnectionDetails.Node> nodes) {
		return nodes.stream().map((node) -> scheme + node.host() + ":" + node.port()).toArray(String[]::new);
	}

	private static void setMillis(Duration duration, java.util.function.IntConsumer setter) {
		if (duration != null) {
			setter.accept((int) Math.min(Integer.MAX_VALUE, duration.toMillis()));
		}
	}

}
