package io.github.distlock.autoconfigure;

import java.util.List;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

import io.github.distlock.LockLostListener;
import io.github.distlock.LockStoreConnectionException;
import io.github.distlock.engine.LockEngine;
import io.github.distlock.zookeeper.ZooKeeperLockEngine;

/**
 * The ZooKeeper lock engine, when {@code distlock-zookeeper} and Curator are on the class path and
 * {@code distlock.backend} is {@code zookeeper} or unset with no other engine present: on the application's
 * {@link CuratorFramework}, or on one made from {@code distlock.zookeeper.*}. Before the first lock, the connection
 * is awaited for one connection timeout and the lock root is written once, so an unreachable ensemble or a missing
 * permission fails start-up naming itself.
 */
@AutoConfiguration(before = DistLockAutoConfiguration.class)
@ConditionalOnClass({ CuratorFramework.class, ZooKeeperLockEngine.class })
@ConditionalOnBooleanProperty(name = "distlock.enabled", matchIfMissing = true)
@ConditionalOnLockBackend(LockBackend.ZOOKEEPER)
@EnableConfigurationProperties(DistLockProperties.class)
@Import(ZooKeeperLockEngineAutoConfiguration.CuratorFromProperties.class)
public final class ZooKeeperLockEngineAutoConfiguration {

	@Bean(destroyMethod = "close")
	@ConditionalOnMissingBean(LockEngine.class)
	ZooKeeperLockEngine distLockEngine(ObjectProvider<CuratorFramework> curator, DistLockProperties properties,
			ObjectProvider<LockLostListener> listeners) throws InterruptedException {
		CuratorFramework client = curator.getIfUnique();
		if (client == null) {
			throw new IllegalStateException("distlock's ZooKeeper engine needs one CuratorFramework bean, or "
					+ "distlock.zookeeper.connect-string to make its own");
		}
		ZooKeeperLockProperties zookeeper = properties.getZookeeper();
		awaitConnection(client, zookeeper);
		ZooKeeperLockEngine engine = new ZooKeeperLockEngine(client, zookeeper.getRoot(),
				(lost) -> DistLockAutoConfiguration.notifyAll(listeners, lost));
		try {
			engine.checkAccess();
		}
		catch (RuntimeException ex) {
			engine.close();
			throw ex;
		}
		return engine;
	}

	/** Starts the client if nobody has, and waits one connection timeout for it to connect. */
	private static void awaitConnection(CuratorFramework client, ZooKeeperLockProperties zookeeper)
			throws InterruptedException {
		if (client.getState() == CuratorFrameworkState.LATENT) {
			client.start();
		}
		long timeout = zookeeper.getConnectionTimeout().toMillis();
		if (!client.blockUntilConnected((int) timeout, TimeUnit.MILLISECONDS)) {
			String connectString = client.getZookeeperClient().getCurrentConnectionString();
			List<String> silent = ZooKeeperListeners.silent(connectString);
			String problem = silent.isEmpty() ? "ZooKeeper did not answer within " + timeout + " ms"
					: "nothing listens at " + String.join(", ", silent) + " (connection refused or unreachable)";
			throw new LockStoreConnectionException("ZooKeeper at " + connectString, problem,
					"Check distlock.zookeeper.connect-string (or the CuratorFramework bean) and that the ensemble "
							+ "is running. For a local server: apt-get install zookeeperd (Debian, port 2181), or "
							+ "Curator's TestingServer (curator-test) in tests",
					null);
		}
	}

	/** A Curator client of distlock's own, when the application has none. */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnMissingBean(CuratorFramework.class)
	static class CuratorFromProperties {

		@Bean(destroyMethod = "close")
		CuratorFramework distLockCuratorFramework(DistLockProperties properties) {
			ZooKeeperLockProperties zookeeper = properties.getZookeeper();
			String connectString = zookeeper.getConnectString();
			if (connectString == null || connectString.isBlank()) {
				throw new IllegalStateException("distlock's ZooKeeper engine needs distlock.zookeeper.connect-string "
						+ "(host:port pairs separated by commas), or one CuratorFramework bean");
			}
			int connectionTimeout = (int) zookeeper.getConnectionTimeout().toMillis();
			return CuratorFrameworkFactory.builder()
				.connectString(connectString.strip())
				.sessionTimeoutMs((int) zookeeper.getSessionTimeout().toMillis())
				.connectionTimeoutMs(connectionTimeout)
				// Retries ride out a reconnection; a lock call's own wait time bounds how long it waits.
				.retryPolicy(new ExponentialBackoffRetry(100, 5, connectionTimeout))
				.build();
		}

	}

}
