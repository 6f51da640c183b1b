package io.github.distlock.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.ZooDefs;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.github.distlock.DistributedLock;
import io.github.distlock.LockAcquisitionException;
import io.github.distlock.LockContext;
import io.github.distlock.LockDefinitionException;
import io.github.distlock.LockMode;
import io.github.distlock.LockStoreConnectionException;
import io.github.distlock.actuate.DistLockHealthIndicator;
import io.github.distlock.engine.LockEngine;
import io.github.distlock.redis.RedisLockEngine;
import io.github.distlock.zookeeper.ZooKeeperLockEngine;

/**
 * The ZooKeeper engine as an application gets it: distlock-zookeeper and Curator on the class path, a connect string
 * or a CuratorFramework bean, and the choice between engines. Runs on a real ZooKeeper server in this JVM.
 */
class ZooKeeperLockEngineAutoConfigurationTests {

	private static TestingServer server;

	private static CuratorFramework admin;

	@BeforeAll
	static void startServer() throws Exception {
		// One fsync per lock node would make the suite crawl on a slow disk.
		System.setProperty("zookeeper.forceSync", "no");
		server = new TestingServer(true);
		admin = CuratorFrameworkFactory.newClient(server.getConnectString(), new RetryOneTime(100));
		admin.start();
		admin.blockUntilConnected(10, TimeUnit.SECONDS);
	}

	@AfterAll
	static void stopServer() throws Exception {
		admin.close();
		server.close();
	}

	/**
	 * The children of a lock's directory once a background delete has had its turn: read again while there are more
	 * than one, for at most 5 s (ZooKeeper tells nobody outside the session when it is applied).
	 */
	private static List<String> nodesOnceSettled(String directory) throws Exception {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
		List<String> nodes = admin.getChildren().forPath(directory);
		while (nodes.size() > 1 && System.nanoTime() - deadline < 0) {
			Thread.sleep(10);
			nodes = admin.getChildren().forPath(directory);
		}
		return nodes;
	}

	/** Both engines on the class path, as the starter plus distlock-zookeeper gives. */
	private final ApplicationContextRunner bothEngines = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, RedisLockEngineAutoConfiguration.class,
				ZooKeeperLockEngineAutoConfiguration.class, DistLockAutoConfiguration.class,
				DistLockHealthContributorAutoConfiguration.class))
		.withUserConfiguration(Orders.class);

	/** The ZooKeeper engine alone: the Redis engine's classes are not there. */
	private final ApplicationContextRunner zooKeeperOnly = this.bothEngines
		.withClassLoader(new FilteredClassLoader(RedisLockEngine.class));

	@Test
	void theOnlyEngineOnTheClassPathLocksAnnotatedMethodsWithNodesInZooKeeper() throws Exception {
		this.zooKeeperOnly.withPropertyValues("distlock.zookeeper.connect-string=" + server.getConnectString())
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(LockEngine.class)).isInstanceOf(ZooKeeperLockEngine.class);
				Orders orders = context.getBean(Orders.class);
				ExecutorService executor = Executors.newSingleThreadExecutor();
				try {
					CountDownLatch inside = new CountDownLatch(1);
					CountDownLatch leave = new CountDownLatch(1);
					Future<Long> holder = executor.submit(() -> orders.pay("order-1", inside, leave));
					assertThat(inside.await(10, TimeUnit.SECONDS)).isTrue();
					assertThatExceptionOfType(LockAcquisitionException.class)
						.isThrownBy(() -> orders.pay("order-1", new CountDownLatch(1), new CountDownLatch(0)));
					// The failed try's own node is deleted in the background, so the call returns without waiting
					// for it; read from another session, it may still show for a moment.
					assertThat(nodesOnceSettled("/distlock/orders/order-1"))
						.as("the lock is a node of the ensemble, and the failed try left none").hasSize(1);
					leave.countDown();
					long token = holder.get(10, TimeUnit.SECONDS);
					assertThat(orders.pay("order-1", new CountDownLatch(1), new CountDownLatch(0)))
						.isGreaterThan(token);
				}
				finally {
					executor.shutdownNow();
				}
			});
	}

	@Test
	void withSeveralEnginesTheBackendPropertyChooses() {
		this.bothEngines
			.withPropertyValues("distlock.backend=zookeeper",
					"distlock.zookeeper.connect-string=" + server.getConnectString())
			.run((context) -> assertThat(context.getBean(LockEngine.class)).isInstanceOf(ZooKeeperLockEngine.class));
		this.bothEngines.withPropertyValues("distlock.zookeeper.connect-string=" + server.getConnectString())
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasMessageContaining("several lock engines on the class path (redis, zookeeper)"));
	}

	@Test
	void theApplicationsCuratorClientIsUsedAndStartedWhenNobodyHas() {
		CuratorFramework own = CuratorFrameworkFactory.newClient(server.getConnectString(), new RetryOneTime(100));
		try {
			this.zooKeeperOnly.withBean("ownCurator", CuratorFramework.class, () -> own).run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBeansOfType(CuratorFramework.class)).containsOnlyKeys("ownCurator");
				assertThat(own.getState()).isEqualTo(CuratorFrameworkState.STARTED);
				context.getBean(Orders.class).pay("own-client", new CountDownLatch(1), new CountDownLatch(0));
			});
		}
		finally {
			own.close();
		}
	}

	@Test
	void noConnectStringAndNoClientFailsStartUpSayingWhatToSet() {
		this.zooKeeperOnly.run((context) -> assertThat(context).hasFailed()
			.getFailure()
			.rootCause()
			.hasMessageContaining("distlock.zookeeper.connect-string"));
	}

	@Test
	void anEnsembleWhereNothingListensFailsStartUpWithinOneConnectionTimeoutSayingSo() {
		int port = InstanceSpec.getRandomPort();
		long start = System.nanoTime();
		this.zooKeeperOnly
			.withPropertyValues("distlock.zookeeper.connect-string=127.0.0.1:" + port,
					"distlock.zookeeper.connection-timeout=500ms")
			.run((context) -> assertThat(StartupFailures.connectionFailure(context.getStartupFailure()))
				.hasMessageContaining("nothing listens at 127.0.0.1:" + port)
				.satisfies((failure) -> assertThat(((LockStoreConnectionException) failure).getAction())
					.contains("apt-get install zookeeperd")));
		assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(5000);
	}

	/** Something listens but does not speak ZooKeeper (a wrong port, a hung server): it did not answer. */
	@Test
	void anEnsembleThatAcceptsButDoesNotAnswerFailsStartUpSayingSo() throws Exception {
		try (ServerSocket mute = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
			this.zooKeeperOnly
				.withPropertyValues("distlock.zookeeper.connect-string=127.0.0.1:" + mute.getLocalPort(),
						"distlock.zookeeper.connection-timeout=500ms")
				.run((context) -> assertThat(StartupFailures.connectionFailure(context.getStartupFailure()))
					.hasMessageContaining("ZooKeeper did not answer within 500 ms"));
		}
	}

	@Test
	void aRootTheClientMayNotWriteFailsStartUpNamingThePermission() throws Exception {
		admin.create().withACL(ZooDefs.Ids.READ_ACL_UNSAFE).forPath("/read-only-locks");
		this.zooKeeperOnly
			.withPropertyValues("distlock.zookeeper.connect-string=" + server.getConnectString(),
					"distlock.zookeeper.root=/read-only-locks")
			.run((context) -> assertThat(StartupFailures.connectionFailure(context.getStartupFailure()))
				.hasMessageContaining("no permission (NOAUTH)")
				.hasMessageContaining("/read-only-locks")
				.hasMessageNotContaining("did not answer"));
	}

	@Test
	void aReadWriteLockOnTheZooKeeperEngineFailsStartUpNamingTheMethod() {
		this.zooKeeperOnly.withPropertyValues("distlock.zookeeper.connect-string=" + server.getConnectString())
			.withBean(Catalog.class)
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.isInstanceOf(LockDefinitionException.class)
				.hasMessageContaining("Catalog#read")
				.hasMessageContaining("ZooKeeperLockEngine"));
	}

	@Test
	void healthIsUpWhileTheEnsembleAnswersAndDownSayingWhyWhenItStops() throws Exception {
		try (TestingServer own = new TestingServer(true)) {
			this.zooKeeperOnly
				.withPropertyValues("distlock.zookeeper.connect-string=" + own.getConnectString(),
						"distlock.health.timeout=500ms")
				.run((context) -> {
					DistLockHealthIndicator indicator = context.getBean(DistLockHealthIndicator.class);
					Health up = indicator.health();
					assertThat(up.getStatus()).isEqualTo(Status.UP);
					assertThat(up.getDetails()).containsKey("roundTripMillis");

					own.stop();
					Health down = indicator.health();
					assertThat(down.getStatus()).isEqualTo(Status.DOWN);
					assertThat(down.getDetails().get("error").toString()).startsWith("ZooKeeper")
						.containsAnyOf("cannot be reached", "did not answer within 500 ms")
						.doesNotContain(own.getConnectString());
				});
		}
	}

	public static class Orders {

		@DistributedLock(name = "orders", key = "#orderId", waitTime = "0s")
		public long pay(String orderId, CountDownLatch inside, CountDownLatch leave) throws InterruptedException {
			inside.countDown();
			assertThat(leave.await(10, TimeUnit.SECONDS)).isTrue();
			return LockContext.current().token();
		}

	}

	public static class Catalog {

		@DistributedLock(name = "catalog", key = "#id", mode = LockMode.READ)
		public List<String> read(String id) {
			return List.of(id);
		}

	}

	/** {@link AbstractKeySetWaitTests} on this class's server. */
	@Nested
	class KeySetWait extends AbstractKeySetWaitTests {

		@Override
		ApplicationContextRunner runner() {
			return ZooKeeperLockEngineAutoConfigurationTests.this.zooKeeperOnly
				.withPropertyValues("distlock.zookeeper.connect-string=" + server.getConnectString());
		}

	}

}
