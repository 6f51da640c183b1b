package io.github.distlock.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.github.distlock.InvalidLockKeyException;
import io.github.distlock.LockAcquisitionException;
import io.github.distlock.autoconfigure.LockedServices.Customer;
import io.github.distlock.autoconfigure.LockedServices.KeySource;
import io.github.distlock.autoconfigure.LockedServices.Order;
import io.github.distlock.autoconfigure.LockedServices.OrderService;
import io.github.distlock.fixtures.redis.RedisExtension;
import io.github.distlock.fixtures.redis.RespClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@code @DistributedLock} from annotation to Redis key and back: key expressions, names, reentrancy, exceptions
 * and mutual exclusion across application instances, on a real redis-server.
 */
class DistributedLockIntegrationTests {

	@RegisterExtension
	static final RedisExtension redis = RedisExtension.anyServer();

	private final ApplicationContextRunner runner = LockContexts.onRedis(redis)
		.withUserConfiguration(Services.class);

	@Configuration(proxyBeanMethods = false)
	static class Services {

		@Bean
		OrderService orderService() {
			return new OrderService();
		}

		@Bean
		KeySource keySource() {
			return new KeySource();
		}

	}

	@Test
	void keysComeFromArgumentsByNameIndexRootAndBeans() {
		this.runner.run((context) -> {
			OrderService service = context.getBean(OrderService.class);
			Order order = new Order("o-1", new Customer("ann"));
			assertThat(service.byName(order, () -> RedisKeys.locks(redis)))
				.containsExactly("distlock:{OrderService.byName:o-1}");
			assertThat(service.byIndexAndConcatenation(order, () -> RedisKeys.locks(redis)))
				.containsExactly("distlock:{orders:ann%3Ao-1}");
			assertThat(service.byRoot(() -> RedisKeys.locks(redis))).containsExactly("distlock:{root:byRoot-1}");
			assertThat(service.byBean(() -> RedisKeys.locks(redis))).containsExactly("distlock:{bean:from-bean}");
			assertThat(service.notLocked(() -> RedisKeys.locks(redis))).isEmpty();
			assertThat(RedisKeys.locks(redis)).as("every lock is released after its call").isEmpty();
		});
	}

	@Test
	void aNullOrBlankKeyFailsTheCallWithoutLockingOrInvoking() {
		this.runner.run((context) -> {
			OrderService service = context.getBean(OrderService.class);
			List<String> invoked = new ArrayList<>();
			assertThatExceptionOfType(InvalidLockKeyException.class)
				.isThrownBy(() -> service.byName(new Order(null, null), () -> invoked.add("null")))
				.withMessageContaining("OrderService#byName")
				.withMessageContaining("#order.id")
				.withMessageContaining("null");
			assertThatExceptionOfType(InvalidLockKeyException.class)
				.isThrownBy(() -> service.shared("  ", () -> invoked.add("blank")))
				.withMessageContaining("blank");
			assertThat(invoked).isEmpty();
			assertThat(RedisKeys.locks(redis)).isEmpty();
		});
	}

	@Test
	void aKeyLongerThanTheLimitFailsTheCallAndTheLongestAllowedLocks() {
		this.runner.run((context) -> {
			OrderService service = context.getBean(OrderService.class);
			List<String> invoked = new ArrayList<>();
			assertThatExceptionOfType(InvalidLockKeyException.class)
				.isThrownBy(() -> service.shared("k".repeat(1024 * 1024), () -> invoked.add("megabyte")))
				.withMessageContaining("OrderService#shared")
				.withMessageContaining("is 1048576 characters long, more than the 1024");
			assertThat(invoked).isEmpty();
			String longest = "k".repeat(1024);
			assertThat(service.shared(longest, () -> RedisKeys.locks(redis)))
				.containsExactly("distlock:{shared:" + longest + "}");
		});
	}

	@Test
	void aNestedCallOnTheSameLockEntersAndTheOutermostReleases() {
		this.runner.run((context) -> {
			OrderService service = context.getBean(OrderService.class);
			List<String> inside = service.shared("r", () -> service.sharedNoWait("r", () -> {
				List<String> keys = new ArrayList<>(RedisKeys.locks(redis));
				keys.add("nested-entered");
				return keys;
			}));
			assertThat(inside).containsExactly("distlock:{shared:r}", "nested-entered");
			assertThat(service.shared("r", () -> RedisKeys.locks(redis) + " then "
					+ service.shared("r", () -> "again") + " " + RedisKeys.locks(redis)))
				.isEqualTo("[distlock:{shared:r}] then again [distlock:{shared:r}]");
			assertThat(RedisKeys.locks(redis)).isEmpty();
		});
	}

	@Test
	void sameKeyUnderAnotherNameIsAnotherLock() {
		this.runner.run((context) -> {
			OrderService service = context.getBean(OrderService.class);
			List<String> keys = service.shared("k", () -> service.otherName("k", () -> RedisKeys.locks(redis)));
			assertThat(keys).containsExactly("distlock:{other:k}", "distlock:{shared:k}");
		});
	}

	@Test
	void theMethodsOwnExceptionReachesTheCallerAndTheLockIsReleased() {
		this.runner.run((context) -> {
			OrderService service = context.getBean(OrderService.class);
			IllegalStateException thrown = new IllegalStateException("boom");
			assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> service.shared("x", () -> {
				throw thrown;
			})).isSameAs(thrown);
			assertThat(RedisKeys.locks(redis)).isEmpty();
		});
	}

	@Test
	void aSecondInstanceWaitsAndTimesOut() {
		this.runner.run((first) -> this.runner.run((second) -> {
			OrderService one = first.getBean(OrderService.class);
			OrderService two = second.getBean(OrderService.class);
			assertThatExceptionOfType(LockAcquisitionException.class)
				.isThrownBy(() -> one.shared("held", () -> two.sharedNoWait("held", () -> "entered")))
				.satisfies((ex) -> {
					assertThat(ex.getLockName()).isEqualTo("shared");
					assertThat(ex.getLockKey()).isEqualTo("held");
				});
			long start = System.nanoTime();
			assertThatExceptionOfType(LockAcquisitionException.class)
				.isThrownBy(() -> one.shared("held", () -> two.placeholders("held", () -> "entered")));
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofSeconds(1));
			assertThat(RedisKeys.locks(redis)).isEmpty();
		}));
	}

	@Test
	void twoApplicationInstancesIncrementARedisCounterExactly() throws Exception {
		int threadsPerInstance = 4;
		int incrementsPerThread = 40;
		this.runner.run((first) -> this.runner.run((second) -> {
			List<OrderService> instances = List.of(first.getBean(OrderService.class),
					second.getBean(OrderService.class));
			ExecutorService pool = Executors.newFixedThreadPool(threadsPerInstance * 2);
			CountDownLatch start = new CountDownLatch(1);
			List<Future<?>> futures = new ArrayList<>();
			try (RespClient setup = redis.client()) {
				setup.call("SET", "counter", "0");
			}
			for (int t = 0; t < threadsPerInstance * 2; t++) {
				OrderService service = instances.get(t % 2);
				futures.add(pool.submit(() -> {
					start.await();
					try (RespClient client = redis.client()) {
						for (int i = 0; i < incrementsPerThread; i++) {
							service.shared("counter", () -> {
								// A deliberately non-atomic read-modify-write: only the lock keeps it exact.
								long value = Long.parseLong(client.get("counter"));
								Thread.yield();
								return client.call("SET", "counter", String.valueOf(value + 1));
							});
						}
					}
					return null;
				}));
			}
			start.countDown();
			for (Future<?> future : futures) {
				future.get(120, TimeUnit.SECONDS);
			}
			pool.shutdown();
			try (RespClient client = redis.client()) {
				assertThat(client.get("counter"))
					.isEqualTo(String.valueOf(threadsPerInstance * 2 * incrementsPerThread));
				client.call("DEL", "counter");
			}
			assertThat(RedisKeys.locks(redis)).isEmpty();
		}));
	}

}
