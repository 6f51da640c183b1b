package io.github.distlock.autoconfigure;

import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.redisson.api.RedissonClient;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.github.distlock.LockAcquisitionException;
import io.github.distlock.autoconfigure.LockedServices.OrderService;
import io.github.distlock.autoconfigure.LockedServices.OrderServiceApplication;
import io.github.distlock.redis.RedisLockEngine;
import io.github.distlock.test.RedisClusterExtension;
import io.github.distlock.test.RespClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Spring Boot's cluster settings ({@code spring.data.redis.cluster.nodes}) are enough: the client distlock builds from
 * them is a Redisson cluster client, the start-up checks pass on a real Redis Cluster of three masters, and an
 * annotated method's lock lands on the master of its slot, held while the method runs.
 */
class ClusterSettingsIntegrationTests {

	@RegisterExtension
	static final RedisClusterExtension redis = RedisClusterExtension.masters(3);

	@Test
	void locksTakenThroughSpringBootsClusterSettingsLandOnTheMasterOfTheirSlot() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DataRedisAutoConfiguration.class,
					RedisLockEngineAutoConfiguration.class, DistLockAutoConfiguration.class))
			.withUserConfiguration(OrderServiceApplication.class)
			.withPropertyValues(redis.springProperties())
			.run((context) -> {
				assertThat(context).hasNotFailed().hasSingleBean(RedisLockEngine.class);
				assertThat(context.getBean(RedissonClient.class).getConfig().isClusterConfig()).isTrue();
				// A master that dies is replaced within about a second: the client must learn of it as soon.
				assertThat(context.getBean(RedissonClient.class).getConfig().useClusterServers().getScanInterval())
					.as("how often the client reads the topology, in ms").isLessThanOrEqualTo(1000);
				OrderService orders = context.getBean(OrderService.class);
				String lockKey = "distlock:{shared:via-cluster}";
				String seen = orders.shared("via-cluster", () -> {
					// From another thread: this one holds the lock, and would enter it again.
					assertThatExceptionOfType(ExecutionException.class).as("held while the method runs")
						.isThrownBy(() -> CompletableFuture
							.supplyAsync(() -> call(() -> orders.sharedNoWait("via-cluster", () -> "entered twice")))
							.get(10, TimeUnit.SECONDS))
						.withCauseInstanceOf(LockAcquisitionException.class);
					try (RespClient master = redis.cluster().clientFor(lockKey)) {
						return master.get(lockKey);
					}
				});
				assertThat(seen).as("the lock, read on the master of its slot while held").isNotNull();
				assertThat(RespClient.withoutTokenFloors(redis.cluster().keys("distlock:*"))).as("released").isEmpty();
			});
	}

	private static <T> T call(Callable<T> work) {
		try {
			return work.call();
		}
		catch (RuntimeException ex) {
			throw ex;
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

}
