package io.github.distlock.autoconfigure;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;

import io.github.distlock.LockStoreException;
import io.github.distlock.engine.LockEngine;
import io.github.distlock.engine.LockHandle;
import io.github.distlock.engine.LockRequest;
import io.github.distlock.interceptor.LockAdvisor;
import io.github.distlock.interceptor.LockOperation;
import io.github.distlock.interceptor.LockOperationSource;
import io.github.distlock.autoconfigure.LockedServices.OrderService;
import io.github.distlock.redis.RedisLockEngine;
import io.github.distlock.fixtures.redis.RedisExtension;
import io.github.distlock.fixtures.redis.RespClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * What the auto-configuration creates, from which settings, and how it backs off.
 */
class DistLockAutoConfigurationTests {

	@RegisterExtension
	static final RedisExtension redis = RedisExtension.anyServer();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class,
				RedisLockEngineAutoConfiguration.class, DistLockAutoConfiguration.class));

	@Test
	void springDataRedisSettingsAreEnough() {
		this.runner.withPropertyValues(redis.springProperties()).run((context) -> {
			assertThat(context).hasSingleBean(RedissonClient.class)
				.hasSingleBean(RedisLockEngine.class)
				.hasSingleBean(LockAdvisor.class)
				.hasSingleBean(LockOperationSource.class);
			assertThat(context.getBean(LockAdvisor.class).getOrder()).isEqualTo(Ordered.LOWEST_PRECEDENCE - 10);
		});
	}

	@Test
	void theClientBuiltFromSpringDataRedisKeepsAFewConnectionsNotRedissonsTwentyFour() {
		this.runner.withPropertyValues(redis.springProperties())
			.withPropertyValues("spring.data.redis.client-name=distlock-pool-test")
			.run((context) -> {
				assertThat(context).hasSingleBean(RedisLockEngine.class);
				try (RespClient admin = redis.client()) {
					long connections = ((String) admin.call("CLIENT", "LIST")).lines()
						.filter((line) -> line.contains(" name=distlock-pool-test "))
						.count();
					// The idle connections plus the engine's pub/sub connection.
					assertThat(connections).isBetween(1L, DataRedisRedissonConfig.MIN_IDLE_CONNECTIONS + 2L);
				}
			});
	}

	@Test
	void propertiesBind() {
		this.runner
			.withPropertyValues(redis.springProperties())
			.withPropertyValues("distlock.lease=7s", "distlock.wait-time=250ms", "distlock.max-lease=1m",
					"distlock.aop.order=42", "distlock.redis.key-prefix=app")
			.withUserConfiguration(Locked.class)
			.run((context) -> {
				LockOperation operation = context.getBean(LockOperationSource.class)
					.getOperation(OrderService.class.getMethod("defaults", String.class,
							java.util.concurrent.Callable.class), OrderService.class);
				assertThat(operation.lease()).isEqualTo(Duration.ofSeconds(7));
				assertThat(operation.waitTime()).isEqualTo(Duration.ofMillis(250));
				assertThat(operation.maxLease()).isEqualTo(Duration.ofMinutes(1));
				assertThat(context.getBean(LockAdvisor.class).getOrder()).isEqualTo(42);
				List<String> keys = context.getBean(OrderService.class)
					.defaults("x", () -> {
						try (RespClient client = redis.client()) {
							return client.keys("app:*");
						}
					});
				assertThat(keys).as("the lock and the token floor, both under the prefix")
					.containsExactlyInAnyOrder("app:{OrderService.defaults:x}", "app:token");
			});
	}

	/** The prefix's old name still works; the new one wins when both are set. */
	@Test
	void theDeprecatedKeyPrefixStillWorks() {
		this.runner.withPropertyValues(redis.springProperties())
			.withPropertyValues("distlock.key-prefix=old")
			.withUserConfiguration(Locked.class)
			.run((context) -> assertThat(context.getBean(DistLockProperties.class).redisKeyPrefix()).isEqualTo("old"));
		this.runner.withPropertyValues(redis.springProperties())
			.withPropertyValues("distlock.key-prefix=old", "distlock.redis.key-prefix=new")
			.withUserConfiguration(Locked.class)
			.run((context) -> assertThat(context.getBean(DistLockProperties.class).redisKeyPrefix()).isEqualTo("new"));
		this.runner.withPropertyValues(redis.springProperties())
			.withUserConfiguration(Locked.class)
			.run((context) -> assertThat(context.getBean(DistLockProperties.class).redisKeyPrefix())
				.isEqualTo("distlock"));
	}

	/** The test's Redis has no replica: a lock no replica acknowledges is released and the call refused. */
	@Test
	void minReplicasAckedBindsAndARedisWithoutReplicasIsRefused() {
		this.runner.withPropertyValues(redis.springProperties())
			.withPropertyValues("distlock.redis.min-replicas-acked=1", "distlock.redis.replica-ack-timeout=100ms")
			.withUserConfiguration(Locked.class)
			.run((context) -> {
				assertThatExceptionOfType(LockStoreException.class)
					.isThrownBy(() -> context.getBean(OrderService.class).defaults("replicated", () -> "ran"))
					.withMessageContaining("only 0 of the 1 replica(s)")
					.withMessageContaining("within 100 ms");
				try (RespClient client = redis.client()) {
					assertThat(client.get("distlock:{OrderService.defaults:replicated}")).as("released").isNull();
				}
			});
	}

	@Test
	void aUserRedissonClientIsUsedAndOursBacksOff() {
		this.runner.withUserConfiguration(UserRedisson.class).run((context) -> {
			assertThat(context).hasSingleBean(RedissonClient.class).hasBean("userRedisson");
			LockHandle handle = context.getBean(LockEngine.class)
				.acquire(new LockRequest("n", "k", Duration.ofSeconds(5), Duration.ZERO, true, null));
			assertThat(RedisKeys.exists(redis, "distlock:{n:k}")).isTrue();
			handle.release();
		});
	}

	@Test
	void aUserEngineReplacesOurs() {
		this.runner.withPropertyValues(redis.springProperties())
			.withUserConfiguration(UserEngine.class)
			.run((context) -> assertThat(context).hasSingleBean(LockEngine.class)
				.doesNotHaveBean(RedisLockEngine.class)
				.hasBean("userEngine"));
	}

	@Test
	void disabledCreatesNothingAndMethodsRunUnlocked() {
		this.runner.withPropertyValues(redis.springProperties())
			.withPropertyValues("distlock.enabled=false")
			.withUserConfiguration(Locked.class)
			.run((context) -> {
				assertThat(context).doesNotHaveBean(LockEngine.class).doesNotHaveBean(LockAdvisor.class);
				assertThat(context.getBean(OrderService.class).shared("k", () -> RedisKeys.locks(redis))).isEmpty();
			});
	}

	@Test
	void aRedissonYamlFileConfiguresTheClient(@TempDir Path dir) throws IOException {
		Path yaml = dir.resolve("redisson.yaml");
		Files.writeString(yaml, "singleServerConfig:\n  address: \"" + redis.url() + "\"\n");
		this.runner.withPropertyValues("distlock.redis.config=file:" + yaml)
			.withUserConfiguration(Locked.class)
			.run((context) -> assertThat(context.getBean(OrderService.class)
				.shared("yaml", () -> RedisKeys.locks(redis))).containsExactly("distlock:{shared:yaml}"));
	}

	@Test
	void aMissingYamlFileFailsStartUpNamingIt() {
		this.runner.withPropertyValues("distlock.redis.config=file:/nonexistent/redisson.yaml")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("distlock.redis.config")
				.hasMessageContaining("does not exist"));
	}

	@Test
	void withNoRedisSettingsAtAllStartUpFailsAndSaysHowToFixIt() {
		new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(RedisLockEngineAutoConfiguration.class, DistLockAutoConfiguration.class))
			.withClassLoader(new FilteredClassLoader(DataRedisConnectionDetails.class))
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("spring.data.redis.host")
				.hasMessageContaining("distlock.redis.config")
				.hasMessageContaining("RedissonClient"));
	}

	@Test
	void withoutAnEngineOnTheClassPathStartUpFailsNamingTheEnginesAndTheirDependencies() {
		this.runner.withPropertyValues(redis.springProperties())
			.withClassLoader(new FilteredClassLoader(RedissonClient.class))
			.withUserConfiguration(Locked.class)
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasMessageContaining("distlock has no lock engine")
				.hasMessageContaining("io.github.distlock:distlock-redis")
				.hasMessageContaining("distlock.enabled=false"));
	}

	@Test
	void aBackendThatIsNotPresentFailsStartUpNamingIt() {
		this.runner.withPropertyValues(redis.springProperties())
			.withPropertyValues("distlock.backend=zookeeper")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasMessageContaining("distlock.backend=zookeeper"));
	}

	@Test
	void theRedisBackendChosenByNameIsUsed() {
		this.runner.withPropertyValues(redis.springProperties())
			.withPropertyValues("distlock.backend=redis")
			.run((context) -> assertThat(context).hasSingleBean(RedisLockEngine.class));
	}

	@Test
	void redisClusterSettingsThatReachNoNodeFailStartUpNamingTheCluster() throws IOException {
		int port;
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			port = socket.getLocalPort();
		}
		this.runner.withPropertyValues("spring.data.redis.cluster.nodes=127.0.0.1:" + port)
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasStackTraceContaining("Redis Cluster at redis://127.0.0.1:" + port));
	}

	@Test
	@ExtendWith(OutputCaptureExtension.class)
	void aPasswordFromSpringDataRedisIsUsedAndNeverLogged(CapturedOutput output) throws Exception {
		try (RespClient admin = redis.client()) {
			admin.call("CONFIG", "SET", "requirepass", "s3cret-pw");
			try {
				this.runner.withPropertyValues(redis.springProperties())
					.withPropertyValues("spring.data.redis.password=s3cret-pw")
					.withUserConfiguration(Locked.class)
					.run((context) -> assertThat(context.getBean(OrderService.class)
						.shared("pw", () -> "entered")).isEqualTo("entered"));
			}
			finally {
				admin.call("AUTH", "s3cret-pw");
				admin.call("CONFIG", "SET", "requirepass", "");
			}
		}
		assertThat(output).doesNotContain("s3cret-pw");
	}

	/** The README's {@code password: ${REDIS_PASSWORD:}} with the variable unset, on a Redis that asks for none. */
	@Test
	void anEmptyPasswordIsNoPassword() {
		this.runner.withPropertyValues(redis.springProperties())
			.withPropertyValues("spring.data.redis.password=${REDIS_PASSWORD_NOT_SET_ANYWHERE:}")
			.withUserConfiguration(Locked.class)
			.run((context) -> assertThat(context.getBean(OrderService.class).shared("empty-pw", () -> "entered"))
				.isEqualTo("entered"));
	}

	@Test
	void methodsAreInterceptedWithoutAspectJAndWithoutBootsAopAutoConfiguration() {
		this.runner.withPropertyValues(redis.springProperties())
			.withClassLoader(new FilteredClassLoader("org.aspectj"))
			.withUserConfiguration(Locked.class)
			.run((context) -> assertThat(context.getBean(OrderService.class)
				.shared("no-aspectj", () -> RedisKeys.locks(redis))).containsExactly("distlock:{shared:no-aspectj}"));
	}

	@Test
	void withoutMicrometerLockingWorksWithNoInstrumentation() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedisLockEngineAutoConfiguration.class, DistLockAutoConfiguration.class,
					DistLockMetricsAutoConfiguration.class, DistLockHealthContributorAutoConfiguration.class,
					DistLocksEndpointAutoConfiguration.class))
			.withClassLoader(new FilteredClassLoader("io.micrometer.core", "org.springframework.boot.actuate",
					"org.springframework.boot.health"))
			.withPropertyValues(redis.springProperties())
			.withUserConfiguration(Locked.class)
			.run((context) -> {
				assertThat(context).hasNotFailed().doesNotHaveBean("distLockMeterBinder")
					.doesNotHaveBean("distlockHealthIndicator")
					.doesNotHaveBean("distLocksEndpoint");
				assertThat(context.getBean(OrderService.class).shared("plain", () -> RedisKeys.locks(redis)))
					.containsExactly("distlock:{shared:plain}");
			});
	}

	@Configuration(proxyBeanMethods = false)
	static class Locked {

		@Bean
		OrderService orderService() {
			return new OrderService();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UserRedisson {

		@Bean(destroyMethod = "shutdown")
		RedissonClient userRedisson() {
			Config config = new Config();
			config.useSingleServer().setAddress(redis.url());
			return Redisson.create(config);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UserEngine {

		@Bean
		LockEngine userEngine() {
			return (request) -> {
				throw new UnsupportedOperationException("not used");
			};
		}

	}

}
