package io.github.distlock.autoconfigure;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.github.distlock.LockContext;
import io.github.distlock.LockStoreConnectionException;
import io.github.distlock.actuate.DistLockHealthIndicator;
import io.github.distlock.autoconfigure.LockedServices.OrderService;
import io.github.distlock.autoconfigure.LockedServices.OrderServiceApplication;
import io.github.distlock.engine.LockEngine;
import io.github.distlock.redis.RedLockEngine;
import io.github.distlock.fixtures.redis.LeastPrivilegeRedis;
import io.github.distlock.fixtures.redis.RedisProcess;
import io.github.distlock.fixtures.redis.TlsRedis;
import io.github.distlock.fixtures.redis.RedisServers;
import io.github.distlock.fixtures.redis.RespClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code distlock.redlock.nodes} turns the RedLock engine on, over real redis-server processes: locks land on every
 * master, start-up tolerates a minority of masters down and fails clearly without a majority or with wrong
 * credentials, and no client is built from {@code spring.data.redis.*}.
 */
class RedLockAutoConfigurationTests {

	private static final List<RedisProcess> masters = new ArrayList<>();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DataRedisAutoConfiguration.class,
				RedLockEngineAutoConfiguration.class, RedisLockEngineAutoConfiguration.class,
				DistLockAutoConfiguration.class, DistLockHealthContributorAutoConfiguration.class))
		.withUserConfiguration(OrderServiceApplication.class)
		// Nothing listens there: a client built from Spring Boot's Redis settings would fail the start-up.
		.withPropertyValues("spring.data.redis.port=1", "distlock.redlock.nodes=" + nodes());

	@BeforeAll
	static void start() {
		for (int i = 0; i < 5; i++) {
			masters.add(RedisServers.startProcess());
		}
	}

	@AfterEach
	void restartKilled() {
		masters.stream().filter((master) -> !master.isAlive()).forEach(RedisProcess::restart);
	}

	@AfterAll
	static void stop() {
		masters.forEach(RedisProcess::close);
	}

	private static String nodes() {
		return masters.stream().map(RedisProcess::url).collect(Collectors.joining(","));
	}

	@Test
	void anAnnotatedLockIsHeldOnEveryMasterAndHealthReportsThem() throws Exception {
		this.runner.run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(RedLockEngine.class).doesNotHaveBean(RedissonClient.class);
			assertThat(context.getBean(LockEngine.class)).isInstanceOf(RedLockEngine.class);
			int holders = context.getBean(OrderService.class).shared("redlock", () -> holders("redlock"));
			assertThat(holders).isEqualTo(5);
			assertThat(holders("redlock")).as("released everywhere").isZero();
			Health health = context.getBean(DistLockHealthIndicator.class).health();
			assertThat(health.getStatus()).isEqualTo(Status.UP);
			assertThat(health.getDetails()).containsEntry("masters", 5);
		});
	}

	@Test
	void twoMastersDownAtStartUpStillStartAndLock() {
		masters.get(3).kill();
		masters.get(4).kill();
		this.runner.run((context) -> {
			assertThat(context).hasNotFailed();
			int holders = context.getBean(OrderService.class).shared("minority-down", () -> holders("minority-down"));
			assertThat(holders).isEqualTo(3);
			assertThat(context.getBean(DistLockHealthIndicator.class).health().getStatus()).isEqualTo(Status.UP);
		});
	}

	@Test
	void threeMastersDownFailTheStartUpNamingThem() {
		masters.get(0).kill();
		masters.get(2).kill();
		masters.get(4).kill();
		this.runner.run((context) -> {
			assertThat(context).hasFailed();
			LockStoreConnectionException failure = StartupFailures.connectionFailure(context.getStartupFailure());
			assertThat(failure.getMessage()).startsWith("Only 2 of 5 RedLock masters could be reached, and a lock "
					+ "needs 3: master #1: Connection refused")
				.contains("master #3: ", "master #5: ")
				.doesNotContain("master #2", "master #4");
		});
	}

	@Test
	void aWrongPasswordFailsTheStartUpNamingTheMasterAndNotThePassword() {
		try (RespClient first = masters.get(0).client()) {
			first.call("ACL", "SETUSER", "locker", "on", ">right-one", "~*", "&*", "+@all");
		}
		try {
			long start = System.nanoTime();
			this.runner.withPropertyValues("distlock.redlock.username=locker",
					"distlock.redlock.password=wrong-one").run((context) -> {
						assertThat(context).hasFailed();
						LockStoreConnectionException failure = StartupFailures
							.connectionFailure(context.getStartupFailure());
						assertThat(failure.getMessage()).startsWith("RedLock master #1 of 5: Authentication failed")
							.doesNotContain("wrong-one");
						assertThat(failure.getAction()).contains("distlock.redlock.username")
							.doesNotContain("spring.data.redis");
					});
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
		}
		finally {
			try (RespClient first = masters.get(0).client()) {
				first.call("ACL", "DELUSER", "locker");
			}
		}
	}

	@Test
	void theDocumentedAclOnEveryMasterRunsALocksLifeWithoutARefusal() {
		for (RedisProcess master : masters) {
			try (RespClient admin = master.client()) {
				List<Object> command = new ArrayList<>(List.of("ACL", "SETUSER", LeastPrivilegeRedis.USER, "reset"));
				command.addAll(LeastPrivilegeRedis.documentedRules());
				admin.call(command.toArray());
			}
		}
		try {
			this.runner.withPropertyValues("distlock.redlock.username=" + LeastPrivilegeRedis.USER,
					"distlock.redlock.password=" + LeastPrivilegeRedis.documentedPassword()).run((context) -> {
						assertThat(context).hasNotFailed();
						RedLockEngine engine = context.getBean(RedLockEngine.class);
						int holders = context.getBean(OrderService.class).shared("acl", () -> holders("acl"));
						assertThat(holders).isEqualTo(5);
						assertThat(context.getBean(DistLockHealthIndicator.class).health().getStatus())
							.isEqualTo(Status.UP);
						assertThat(engine.standingRefusal()).isNull();
						assertThat(engine.statistics().refusals()).isZero();
					});
		}
		finally {
			for (RedisProcess master : masters) {
				try (RespClient admin = master.client()) {
					admin.call("ACL", "DELUSER", LeastPrivilegeRedis.USER);
				}
			}
		}
	}

	@Test
	void tlsMastersTrustedThroughAnSslBundleLockAndAnUntrustedOneFailsTheStartUpNamingIt() throws Exception {
		List<TlsRedis> tls = List.of(TlsRedis.start("IP:127.0.0.1"), TlsRedis.start("IP:127.0.0.1"),
				TlsRedis.start("IP:127.0.0.1"));
		try {
			// One trust store for all three: each test server has a CA of its own.
			Path cas = Files.createTempFile("redlock-cas", ".pem");
			Files.writeString(cas, Files.readString(tls.get(0).caCertificate())
					+ Files.readString(tls.get(1).caCertificate()) + Files.readString(tls.get(2).caCertificate()));
			String nodes = tls.stream()
				.map((server) -> "rediss://127.0.0.1:" + server.tlsPort())
				.collect(Collectors.joining(","));
			ApplicationContextRunner runner = new ApplicationContextRunner()
				.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, SslAutoConfiguration.class,
						RedLockEngineAutoConfiguration.class, RedisLockEngineAutoConfiguration.class,
						DistLockAutoConfiguration.class))
				.withUserConfiguration(OrderServiceApplication.class)
				.withPropertyValues("distlock.redlock.nodes=" + nodes, "distlock.redlock.ssl.bundle=masters");
			runner.withPropertyValues("spring.ssl.bundle.pem.masters.truststore.certificate=file:" + cas)
				.run((context) -> {
					assertThat(context).hasNotFailed();
					String token = context.getBean(OrderService.class)
						.shared("over-tls", () -> String.valueOf(LockContext.current().token()));
					assertThat(Long.parseLong(token)).isPositive();
				});
			// Master #2's CA left out: its certificate is not trusted, which start-up names.
			Path twoCas = Files.createTempFile("redlock-two-cas", ".pem");
			Files.writeString(twoCas,
					Files.readString(tls.get(0).caCertificate()) + Files.readString(tls.get(2).caCertificate()));
			runner.withPropertyValues("spring.ssl.bundle.pem.masters.truststore.certificate=file:" + twoCas)
				.run((context) -> {
					assertThat(context).hasFailed();
					LockStoreConnectionException failure = StartupFailures
						.connectionFailure(context.getStartupFailure());
					assertThat(failure.getMessage())
						.startsWith("RedLock master #2 of 3: TLS: server certificate not trusted");
					assertThat(failure.getAction()).contains("distlock.redlock.ssl.bundle")
						.doesNotContain("spring.data.redis");
				});
		}
		finally {
			tls.forEach(TlsRedis::close);
		}
	}

	/**
	 * Masters that require a client certificate (mutual TLS) lock with the one in the SSL bundle's keystore. One
	 * master that rejects it (its CA is another) fails the start naming it and the rejection, although the other two
	 * would make a majority: a refusal is not an outage, and is not cured by waiting.
	 */
	@Test
	void mutualTlsMastersLockWithTheBundlesClientCertificateAndOneThatRejectsItFailsTheStartUpNamingIt()
			throws Exception {
		List<TlsRedis> tls = TlsRedis.startMutual(3, "IP:127.0.0.1");
		TlsRedis otherCa = TlsRedis.startMutual("IP:127.0.0.1");
		try {
			Path cas = Files.createTempFile("redlock-mutual-cas", ".pem");
			Files.writeString(cas, Files.readString(tls.get(0).caCertificate())
					+ Files.readString(otherCa.caCertificate()));
			ApplicationContextRunner runner = new ApplicationContextRunner()
				.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, SslAutoConfiguration.class,
						RedLockEngineAutoConfiguration.class, RedisLockEngineAutoConfiguration.class,
						DistLockAutoConfiguration.class))
				.withUserConfiguration(OrderServiceApplication.class)
				.withPropertyValues("distlock.redlock.ssl.bundle=masters",
						"spring.ssl.bundle.pem.masters.truststore.certificate=file:" + cas,
						"spring.ssl.bundle.pem.masters.keystore.certificate=file:" + tls.get(0).clientCertificate(),
						"spring.ssl.bundle.pem.masters.keystore.private-key=file:" + tls.get(0).clientKey());
			runner.withPropertyValues("distlock.redlock.nodes=" + tlsNodes(tls)).run((context) -> {
				assertThat(context).hasNotFailed();
				int held = context.getBean(OrderService.class).shared("over-mutual-tls", () -> {
					int holders = 0;
					for (TlsRedis server : tls) {
						try (RespClient client = new RespClient("127.0.0.1", server.plainPort())) {
							holders += (client.get("distlock:{shared:over-mutual-tls}") != null) ? 1 : 0;
						}
					}
					return holders;
				});
				assertThat(held).as("masters holding the lock while the method ran").isEqualTo(3);
			});
			runner.withPropertyValues("distlock.redlock.nodes=" + tlsNodes(List.of(tls.get(0), tls.get(1), otherCa)))
				.run((context) -> {
					assertThat(context).hasFailed();
					LockStoreConnectionException failure = StartupFailures
						.connectionFailure(context.getStartupFailure());
					assertThat(failure.getMessage()).startsWith("RedLock master #3 of 3: TLS: Redis at rediss://127.0.0.1:"
							+ otherCa.tlsPort() + " rejected distlock's client certificate");
					assertThat(failure.getAction()).contains("client certificate signed by a CA");
				});
		}
		finally {
			tls.forEach(TlsRedis::close);
			otherCa.close();
		}
	}

	private static String tlsNodes(List<TlsRedis> servers) {
		return servers.stream().map((server) -> "rediss://127.0.0.1:" + server.tlsPort()).collect(Collectors.joining(","));
	}

	private static int holders(String key) {
		int holders = 0;
		for (RedisProcess master : masters) {
			if (master.isAlive()) {
				try (RespClient client = master.client()) {
					holders += (client.get("distlock:{shared:" + key + "}") != null) ? 1 : 0;
				}
			}
		}
		return holders;
	}

}
