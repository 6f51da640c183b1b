package io.github.distlock.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.auth.Permission;
import io.etcd.jetcd.options.GetOption;
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
import io.github.distlock.actuate.DistLockHealthIndicator;
import io.github.distlock.engine.LockEngine;
import io.github.distlock.etcd.EtcdLockEngine;
import io.github.distlock.fixtures.etcd.TestEtcd;
import io.github.distlock.redis.RedisLockEngine;

/**
 * The etcd engine as an application gets it: distlock-etcd and jetcd on the class path, endpoints or a Client bean,
 * credentials, and the choice between engines. Runs on a real etcd process with authentication on.
 */
class EtcdLockEngineAutoConfigurationTests {

	private static final String PASSWORD = "s3cret-Pa55";

	private static TestEtcd etcd;

	@BeforeAll
	static void startEtcdWithAuthentication() throws Exception {
		etcd = TestEtcd.single();
		var auth = etcd.admin().getAuthClient();
		auth.userAdd(bytes("root"), bytes(PASSWORD)).get(10, TimeUnit.SECONDS);
		auth.roleAdd(bytes("root")).get(10, TimeUnit.SECONDS);
		auth.userGrantRole(bytes("root"), bytes("root")).get(10, TimeUnit.SECONDS);
		auth.roleAdd(bytes("locks")).get(10, TimeUnit.SECONDS);
		auth.roleGrantPermission(bytes("locks"), bytes("/distlock/"), bytes("/distlock0"), Permission.Type.READWRITE)
			.get(10, TimeUnit.SECONDS);
		auth.userAdd(bytes("locker"), bytes(PASSWORD)).get(10, TimeUnit.SECONDS);
		auth.userGrantRole(bytes("locker"), bytes("locks")).get(10, TimeUnit.SECONDS);
		auth.roleAdd(bytes("reader")).get(10, TimeUnit.SECONDS);
		auth.roleGrantPermission(bytes("reader"), bytes("/distlock/"), bytes("/distlock0"), Permission.Type.READ)
			.get(10, TimeUnit.SECONDS);
		auth.userAdd(bytes("reader"), bytes(PASSWORD)).get(10, TimeUnit.SECONDS);
		auth.userGrantRole(bytes("reader"), bytes("reader")).get(10, TimeUnit.SECONDS);
		auth.authEnable().get(10, TimeUnit.SECONDS);
	}

	@AfterAll
	static void stopEtcd() {
		if (etcd != null) {
			etcd.close();
		}
	}

	/** The keys under distlock's root, read as etcd's root user (the fixture's own client has no credentials). */
	private static List<KeyValue> lockKeysInEtcd() throws Exception {
		try (Client root = etcd.newClient((builder) -> builder.user(bytes("root")).password(bytes(PASSWORD)))) {
			return root.getKVClient()
				.get(bytes("/distlock/"), GetOption.builder().isPrefix(true).build())
				.get(10, TimeUnit.SECONDS)
				.getKvs();
		}
	}

	private static ByteSequence bytes(String text) {
		return ByteSequence.from(text, StandardCharsets.UTF_8);
	}

	/** Both engines on the class path, as the starter plus distlock-etcd gives. */
	private final ApplicationContextRunner bothEngines = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, RedisLockEngineAutoConfiguration.class,
				EtcdLockEngineAutoConfiguration.class, DistLockAutoConfiguration.class,
				DistLockHealthContributorAutoConfiguration.class))
		.withUserConfiguration(Orders.class);

	/** The etcd engine alone: the Redis engine's classes are not there. */
	private final ApplicationContextRunner etcdOnly = this.bothEngines
		.withClassLoader(new FilteredClassLoader(RedisLockEngine.class));

	private String[] as(String user, String password) {
		return new String[] { "distlock.etcd.endpoints=" + String.join(",", etcd.endpoints()),
				"distlock.etcd.username=" + user, "distlock.etcd.password=" + password };
	}

	@Test
	void theOnlyEngineOnTheClassPathLocksAnnotatedMethodsWithKeysInEtcd() throws Exception {
		this.etcdOnly.withPropertyValues(as("locker", PASSWORD)).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean(LockEngine.class)).isInstanceOf(EtcdLockEngine.class);
			Orders orders = context.getBean(Orders.class);
			ExecutorService executor = Executors.newSingleThreadExecutor();
			try {
				CountDownLatch inside = new CountDownLatch(1);
				CountDownLatch leave = new CountDownLatch(1);
				Future<Long> holder = executor.submit(() -> orders.pay("order-1", inside, leave));
				assertThat(inside.await(10, TimeUnit.SECONDS)).isTrue();
				assertThatExceptionOfType(LockAcquisitionException.class)
					.isThrownBy(() -> orders.pay("order-1", new CountDownLatch(1), new CountDownLatch(0)));
				assertThat(lockKeysInEtcd()).as("the lock is a key in etcd").hasSize(1);
				leave.countDown();
				long token = holder.get(10, TimeUnit.SECONDS);
				assertThat(orders.pay("order-1", new CountDownLatch(1), new CountDownLatch(0))).isGreaterThan(token);

				Health health = context.getBean(DistLockHealthIndicator.class).health();
				assertThat(health.getStatus()).isEqualTo(Status.UP);
				assertThat(health.getDetails().toString()).doesNotContain(PASSWORD);
			}
			finally {
				executor.shutdownNow();
			}
		});
	}

	@Test
	void theElectionTimeoutDefaultsToTheEnginesAndATunedOneStillLocks() {
		// The property's default is written out for the metadata (the etcd engine is optional there): it must stay etcd's.
		assertThat(new DistLockProperties().getEtcd().getElectionTimeout())
			.isEqualTo(EtcdLockEngine.DEFAULT_ELECTION_TIMEOUT);
		this.etcdOnly.withPropertyValues(as("locker", PASSWORD))
			.withPropertyValues("distlock.etcd.election-timeout=250ms")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				Orders orders = context.getBean(Orders.class);
				long first = orders.pay("order-2", new CountDownLatch(1), new CountDownLatch(0));
				assertThat(orders.pay("order-2", new CountDownLatch(1), new CountDownLatch(0))).isGreaterThan(first);
			});
	}

	@Test
	void withSeveralEnginesTheBackendPropertyChooses() {
		this.bothEngines.withPropertyValues(as("locker", PASSWORD))
			.withPropertyValues("distlock.backend=etcd")
			.run((context) -> assertThat(context.getBean(LockEngine.class)).isInstanceOf(EtcdLockEngine.class));
		this.bothEngines.withPropertyValues(as("locker", PASSWORD))
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasMessageContaining("several lock engines on the class path (redis, etcd)"));
	}

	@Test
	void theApplicationsClientIsUsed() {
		Client own = etcd.newClient((builder) -> builder.user(bytes("locker")).password(bytes(PASSWORD)));
		try {
			this.etcdOnly.withBean("ownEtcd", Client.class, () -> own).run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBeansOfType(Client.class)).containsOnlyKeys("ownEtcd");
				context.getBean(Orders.class).pay("own-client", new CountDownLatch(1), new CountDownLatch(0));
			});
		}
		finally {
			own.close();
		}
	}

	@Test
	void noEndpointsAndNoClientFailsStartUpSayingWhatToSet() {
		this.etcdOnly.run((context) -> assertThat(context).hasFailed()
			.getFailure()
			.rootCause()
			.hasMessageContaining("distlock.etcd.endpoints"));
	}

	@Test
	void aWrongPasswordFailsStartUpSayingSoWithoutThePassword() {
		this.etcdOnly.withPropertyValues(as("locker", "not-" + PASSWORD))
			.run((context) -> assertThat(StartupFailures.connectionFailure(context.getStartupFailure()).getMessage())
				.containsIgnoringCase("password")
				.doesNotContain("not-" + PASSWORD)
				.doesNotContainIgnoringCase("unreachable"));
	}

	@Test
	void aUserWhoMayOnlyReadFailsStartUpNamingThePermission() {
		this.etcdOnly.withPropertyValues(as("reader", PASSWORD))
			.run((context) -> assertThat(StartupFailures.connectionFailure(context.getStartupFailure()).getMessage())
				.containsIgnoringCase("permission")
				.doesNotContainIgnoringCase("unreachable"));
	}

	/**
	 * Timed against a context that starts, just before, on the same machine under the same load (CI beside a torture
	 * run took 7.4 s where a fixed 6 s bound was set). A start-up that tried the cluster once takes at most that
	 * start-up plus one connect timeout; one that tried again would take at least another, which is the margin left
	 * for the load to vary between the two start-ups.
	 */
	@Test
	void anUnreachableClusterFailsStartUpWithinTheConnectTimeout() {
		Duration connectTimeout = Duration.ofSeconds(1);
		long start = System.nanoTime();
		this.etcdOnly.withPropertyValues(as("locker", PASSWORD)).run((context) -> assertThat(context).hasNotFailed());
		Duration startUp = Duration.ofNanos(System.nanoTime() - start);
		start = System.nanoTime();
		this.etcdOnly
			.withPropertyValues("distlock.etcd.endpoints=http://127.0.0.1:1",
					"distlock.etcd.connect-timeout=" + connectTimeout.toMillis() + "ms")
			.run((context) -> assertThat(StartupFailures.connectionFailure(context.getStartupFailure()).getMessage())
				.containsIgnoringCase("etcd"));
		Duration took = Duration.ofNanos(System.nanoTime() - start);
		assertThat(took).as("start-up failed within one connect timeout (a start-up that succeeds took %s)", startUp)
			.isLessThan(startUp.plus(connectTimeout.multipliedBy(2)));
	}

	public static class Orders {

		@DistributedLock(name = "orders", key = "#orderId", waitTime = "0s")
		public long pay(String orderId, CountDownLatch inside, CountDownLatch leave) throws InterruptedException {
			inside.countDown();
			assertThat(leave.await(10, TimeUnit.SECONDS)).isTrue();
			return LockContext.current().token();
		}

	}

	/** {@link AbstractKeySetWaitTests} on this class's etcd, as the user allowed to lock. */
	@Nested
	class KeySetWait extends AbstractKeySetWaitTests {

		@Override
		ApplicationContextRunner runner() {
			return EtcdLockEngineAutoConfigurationTests.this.etcdOnly.withPropertyValues(as("locker", PASSWORD));
		}

	}

}
