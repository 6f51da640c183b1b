package io.github.distlock.redis;

import java.time.Duration;

import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import io.github.distlock.test.RedisCluster;
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

	/** A client of a Redis Cluster, given its masters as seeds, as an application instance would have. */
	static RedissonClient create(RedisCluster cluster, Duration timeout) {
		return Redisson.create(clusterConfig(cluster, timeout));
	}

	static Config clusterConfig(RedisCluster cluster, Duration timeout) {
		Config config = new Config();
		config.setThreads(4);
		config.setNettyThreads(4);
		config.useClusterServers()
			.addNodeAddress(cluster.nodeAddresses().toArray(String[]::new))
			.setTimeout((int) timeout.toMillis())
			// Redisson learns a moved slot or a new master at its next scan (5 s by default): sooner in tests.
			.setScanInterval(500)
			.setMasterConnectionMinimumIdleSize(2)
			.setMasterConnectionPoolSize(16)
			.setSlaveConnectionMinimumIdleSize(1)
			.setSubscriptionConnectionMinimumIdleSize(1);
		return config;
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
