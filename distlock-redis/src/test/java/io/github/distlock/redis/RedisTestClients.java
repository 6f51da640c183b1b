package io.github.distlock.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;

import javax.net.ssl.TrustManagerFactory;

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

	/**
	 * As {@link #clusterConfig}, over TLS, for a cluster started with {@link RedisCluster#startTls}: its masters'
	 * TLS addresses as seeds, trusting the CA that signed the nodes' certificates, the host name checked.
	 */
	static Config clusterTlsConfig(RedisCluster cluster, Duration timeout) {
		Config config = clusterConfig(cluster, timeout);
		config.useClusterServers().setNodeAddresses(cluster.tlsNodeAddresses());
		config.useClusterServers().setSslTrustManagerFactory(trusting(cluster));
		return config;
	}

	private static TrustManagerFactory trusting(RedisCluster cluster) {
		try (InputStream pem = Files.newInputStream(cluster.caCertificate())) {
			KeyStore trusted = KeyStore.getInstance(KeyStore.getDefaultType());
			trusted.load(null, null);
			trusted.setCertificateEntry("ca", CertificateFactory.getInstance("X.509").generateCertificate(pem));
			TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
			factory.init(trusted);
			return factory;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (GeneralSecurityException ex) {
			throw new IllegalStateException(ex);
		}
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
