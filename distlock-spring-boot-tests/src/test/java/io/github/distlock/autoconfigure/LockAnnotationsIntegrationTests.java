package io.github.distlock.autoconfigure;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.AliasFor;

import io.github.distlock.DistributedLock;
import io.github.distlock.DistributedLockConfig;
import io.github.distlock.DistributedLockTemplate;
import io.github.distlock.LockAcquisitionException;
import io.github.distlock.LockContext;
import io.github.distlock.LockReentryException;
import io.github.distlock.LockSpec;
import io.github.distlock.OnLost;
import io.github.distlock.autoconfigure.LockedServices.Customer;
import io.github.distlock.autoconfigure.LockedServices.Order;
import io.github.distlock.interceptor.LockOperation;
import io.github.distlock.interceptor.LockOperationSource;
import io.github.distlock.fixtures.redis.RedisExtension;
import io.github.distlock.fixtures.redis.RespClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Composed annotations, class-level defaults and non-reentrant locks, seen in Redis while the lock is held, on a
 * real redis-server.
 */
class LockAnnotationsIntegrationTests {

	@RegisterExtension
	static final RedisExtension redis = RedisExtension.anyServer();

	private final ApplicationContextRunner runner = LockContexts.onRedis(redis)
		.withUserConfiguration(Services.class)
		.withPropertyValues("distlock.lease=20s", "distlock.wait-time=2s", "distlock.max-lease=1m",
				"test.class-name=orders");

	/** A lock for orders: named, with its own lease, keyed by its value. */
	@Retention(RetentionPolicy.RUNTIME)
	@Target(ElementType.METHOD)
	@DistributedLock(name = "order", lease = "4s")
	public @interface OrderLock {

		@AliasFor(annotation = DistributedLock.class, attribute = "key")
		String value();

		@AliasFor(annotation = DistributedLock.class, attribute = "waitTime")
		String waitTime() default "";

	}

	public static class ComposedService {

		@OrderLock("#order.id")
		public <T> T pay(Order order, Callable<T> work) throws Exception {
			return work.call();
		}

		@OrderLock(value = "#order.customer.name", waitTime = "0s")
		public <T> T payNow(Order order, Callable<T> work) throws Exception {
			return work.call();
		}

	}

	@DistributedLockConfig(name = "${test.class-name}", lease = "7s", waitTime = "0s", onLost = OnLost.IGNORE)
	public static class ConfiguredService {

		@DistributedLock(key = "#id")
		public <T> T byClass(String id, Callable<T> work) throws Exception {
			return work.call();
		}

		@DistributedLock(key = "#id", name = "own", lease = "3s", waitTime = "1s", onLost = OnLost.INTERRUPT)
		public <T> T overridden(String id, Callable<T> work) throws Exception {
			return work.call();
		}

		/** The composed annotation sets name and lease, so only its empty wait time comes from the class. */
		@OrderLock("#id")
		public <T> T composed(String id, Callable<T> work) throws Exception {
			return work.call();
		}

	}

	@DistributedLockConfig(name = "base", lease = "5s")
	public static class BaseService {

		@DistributedLock(key = "#id")
		public <T> T inherited(String id, Callable<T> work) throws Exception {
			return work.call();
		}

	}

	/** Inherits its locked method; the defaults are those of the class that declares it. */
	public static class SubService extends BaseService {

	}

	public static class ReentryService {

		private final AtomicInteger runs = new AtomicInteger();

		/** How often {@link #notReentrant} ran; a method, as the proxy's own fields are not the bean's. */
		public int runs() {
			return this.runs.get();
		}

		@DistributedLock(key = "#id", name = "reentry")
		public <T> T outer(String id, Callable<T> work) throws Exception {
			return work.call();
		}

		@DistributedLock(key = "#id", name = "reentry", reentrant = false)
		public String notReentrant(String id) {
			this.runs.incrementAndGet();
			return "ran " + LockContext.current().key();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Services {

		@Bean
		ComposedService composedService() {
			return new ComposedService();
		}

		@Bean
		ConfiguredService configuredService() {
			return new ConfiguredService();
		}

		@Bean
		SubService subService() {
			return new SubService();
		}

		@Bean
		ReentryService reentryService() {
			return new ReentryService();
		}

	}

	@Test
	void aComposedAnnotationLocksWithItsAliasedKeyAndItsOwnAttributes() {
		this.runner.run((context) -> {
			ComposedService service = context.getBean(ComposedService.class);
			Order order = new Order("o-1", new Customer("ann"));
			assertThat(service.pay(order, () -> RedisKeys.locks(redis))).containsExactly("distlock:{order:o-1}");
			assertThat(service.pay(order, () -> leaseMillis("distlock:{order:o-1}"))).isBetween(3000L, 4000L);
			assertThat(service.payNow(order, () -> RedisKeys.locks(redis))).containsExactly("distlock:{order:ann}");
			LockOperation pay = operation(context, ComposedService.class, "pay", Order.class);
			assertThat(pay.keyText()).isEqualTo("#order.id");
			assertThat(pay.waitTime()).as("the property, as the composed annotation leaves it empty")
				.isEqualTo(Duration.ofSeconds(2));
			assertThat(operation(context, ComposedService.class, "payNow", Order.class).waitTime())
				.isEqualTo(Duration.ZERO);
			assertThat(RedisKeys.locks(redis)).isEmpty();
		});
	}

	@Test
	void classDefaultsApplyWhereTheMethodSetsNothing() {
		this.runner.run((context) -> {
			ConfiguredService service = context.getBean(ConfiguredService.class);
			assertThat(service.byClass("k", () -> RedisKeys.locks(redis))).containsExactly("distlock:{orders:k}");
			assertThat(service.byClass("k", () -> leaseMillis("distlock:{orders:k}"))).isBetween(6000L, 7000L);
			LockOperation byClass = operation(context, ConfiguredService.class, "byClass", String.class);
			assertThat(byClass.name()).isEqualTo("orders");
			assertThat(byClass.lease()).isEqualTo(Duration.ofSeconds(7));
			assertThat(byClass.waitTime()).isEqualTo(Duration.ZERO);
			assertThat(byClass.onLost()).isEqualTo(OnLost.IGNORE);
			assertThat(byClass.maxLease()).as("set by neither: the property").isEqualTo(Duration.ofMinutes(1));
		});
	}

	@Test
	void theMethodsAttributesWinOverTheClass() {
		this.runner.run((context) -> {
			ConfiguredService service = context.getBean(ConfiguredService.class);
			assertThat(service.overridden("k", () -> RedisKeys.locks(redis))).containsExactly("distlock:{own:k}");
			assertThat(service.overridden("k", () -> leaseMillis("distlock:{own:k}"))).isBetween(2000L, 3000L);
			LockOperation overridden = operation(context, ConfiguredService.class, "overridden", String.class);
			assertThat(overridden.waitTime()).isEqualTo(Duration.ofSeconds(1));
			assertThat(overridden.onLost()).isEqualTo(OnLost.INTERRUPT);
			assertThat(service.composed("k", () -> RedisKeys.locks(redis))).containsExactly("distlock:{order:k}");
			LockOperation composed = operation(context, ConfiguredService.class, "composed", String.class);
			assertThat(composed.lease()).isEqualTo(Duration.ofSeconds(4));
			assertThat(composed.waitTime()).as("from the class").isEqualTo(Duration.ZERO);
			assertThat(RedisKeys.locks(redis)).isEmpty();
		});
	}

	@Test
	void anInheritedMethodTakesTheDefaultsOfTheClassThatDeclaresIt() {
		this.runner.run((context) -> {
			SubService service = context.getBean(SubService.class);
			assertThat(service.inherited("k", () -> RedisKeys.locks(redis))).containsExactly("distlock:{base:k}");
			assertThat(service.inherited("k", () -> leaseMillis("distlock:{base:k}"))).isBetween(4000L, 5000L);
		});
	}

	@Test
	void theClassWaitTimeMakesASecondInstanceFailAtOnce() {
		this.runner.run((first) -> this.runner.run((second) -> {
			ConfiguredService one = first.getBean(ConfiguredService.class);
			ConfiguredService two = second.getBean(ConfiguredService.class);
			assertThatExceptionOfType(LockAcquisitionException.class)
				.isThrownBy(() -> one.byClass("held", () -> two.byClass("held", () -> "entered")))
				.satisfies((ex) -> {
					assertThat(ex.getLockName()).isEqualTo("orders");
					// Waiting by the property's distlock.wait-time would have taken its 2 s.
					assertThat(ex.getWaited()).as("the class's 0s wait").isLessThan(Duration.ofSeconds(2));
				});
			assertThat(RedisKeys.locks(redis)).isEmpty();
		}));
	}

	@Test
	void aNonReentrantNestedCallFailsFastAndTheOuterCallKeepsAndReleasesItsLock() {
		this.runner.run((context) -> {
			ReentryService service = context.getBean(ReentryService.class);
			List<Object> seen = service.outer("r", () -> {
				long token = LockContext.current().token();
				LockReentryException refused = null;
				try {
					service.notReentrant("r");
				}
				catch (LockReentryException ex) {
					refused = ex;
				}
				return List.of(refused, RedisKeys.locks(redis), LockContext.current().token() == token);
			});
			assertThat(seen.get(0)).isInstanceOfSatisfying(LockReentryException.class, (ex) -> {
				assertThat(ex.getLockName()).isEqualTo("reentry");
				assertThat(ex.getLockKey()).isEqualTo("r");
				assertThat(ex.getMethod()).isEqualTo("ReentryService#notReentrant");
				assertThat(ex).hasMessageContaining("already held by this thread");
			});
			assertThat(seen.get(1)).as("the outer call still holds its lock").isEqualTo(List.of("distlock:{reentry:r}"));
			assertThat(seen.get(2)).as("and is still the innermost lock").isEqualTo(true);
			assertThat(service.runs()).as("the refused method did not run").isZero();
			assertThat(RedisKeys.locks(redis)).as("released by the outer call").isEmpty();
		});
	}

	@Test
	void aNonReentrantMethodRunsOutsideItsLockAndInsideOthers() {
		this.runner.run((context) -> {
			ReentryService service = context.getBean(ReentryService.class);
			assertThat(service.notReentrant("a")).isEqualTo("ran a");
			assertThat(service.outer("a", () -> service.notReentrant("b"))).isEqualTo("ran b");
			assertThat(service.runs()).isEqualTo(2);
			assertThat(RedisKeys.locks(redis)).isEmpty();
		});
	}

	@Test
	void aNonReentrantMethodIsRefusedInsideTheTemplatesHoldOfItsLock() {
		this.runner.run((context) -> {
			ReentryService service = context.getBean(ReentryService.class);
			DistributedLockTemplate template = context.getBean(DistributedLockTemplate.class);
			assertThatExceptionOfType(LockReentryException.class)
				.isThrownBy(() -> template.execute(LockSpec.of("reentry", "t"), (lock) -> service.notReentrant("t")));
			assertThat(service.runs()).isZero();
			assertThat(RedisKeys.locks(redis)).isEmpty();
		});
	}

	private static LockOperation operation(ApplicationContext context, Class<?> type, String method,
			Class<?> firstParameter) throws NoSuchMethodException {
		return context.getBean(LockOperationSource.class)
			.getOperation(type.getMethod(method, firstParameter, Callable.class), type);
	}

	/** What is left of the lock's lease in Redis, in milliseconds. */
	private static long leaseMillis(String key) {
		try (RespClient client = redis.client()) {
			return (Long) client.call("PTTL", key);
		}
	}

}
