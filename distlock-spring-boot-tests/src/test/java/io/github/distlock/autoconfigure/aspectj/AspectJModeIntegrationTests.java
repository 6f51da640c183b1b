package io.github.distlock.autoconfigure.aspectj;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.aop.support.AopUtils;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.github.distlock.DistributedLock;
import io.github.distlock.DistributedLockTemplate;
import io.github.distlock.LockAcquisitionException;
import io.github.distlock.LockContext;
import io.github.distlock.LockSpec;
import io.github.distlock.autoconfigure.DistLockAutoConfiguration;
import io.github.distlock.autoconfigure.RedisLockEngineAutoConfiguration;
import io.github.distlock.autoconfigure.unwoven.Invoices;
import io.github.distlock.fixtures.redis.RedisExtension;
import io.github.distlock.fixtures.redis.RespClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * An application in AspectJ mode, in a JVM started with the weaver as its agent (this package's test run): its bean
 * is not proxied, and a locked method it calls itself, and a private one, are locked on a real Redis. When the
 * application stops, a woven call throws rather than runs unlocked. In proxy mode the woven aspect fails start-up.
 */
class AspectJModeIntegrationTests {

	@RegisterExtension
	static final RedisExtension redis = RedisExtension.anyServer();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DataRedisAutoConfiguration.class,
				RedisLockEngineAutoConfiguration.class, DistLockAutoConfiguration.class))
		.withUserConfiguration(Application.class)
		.withPropertyValues(redis.springProperties());

	@Test
	void aCallFromInsideTheBeanAndAPrivateMethodAreLockedAndNothingIsProxied() {
		this.runner.withPropertyValues("distlock.aop.mode=aspectj").run((context) -> {
			assertThat(context).hasNotFailed();
			Orders orders = context.getBean(Orders.class);
			assertThat(AopUtils.isAopProxy(orders)).as("proxied").isFalse();
			DistributedLockTemplate template = context.getBean(DistributedLockTemplate.class);

			assertThat(orders.payFromInside("o-1")).isEqualTo("Orders.pay/o-1");
			assertThat(orders.heldInStore).containsExactly(true);
			assertThat(orders.refund("o-2")).isEqualTo("refund/o-2");
			assertThat(orders.heldInStore).containsExactly(true, true);

			// Held by the template on another thread (a different holder), so the woven call cannot take it.
			assertBusyWhileHeldElsewhere(template, "Orders.pay", "o-3", () -> orders.payFromInside("o-3"));
			assertBusyWhileHeldElsewhere(template, "refund", "o-4", () -> orders.refund("o-4"));
			assertThat(orders.heldInStore).as("runs of the method").hasSize(2);
		});
	}

	@Test
	void afterTheApplicationStopsAWovenCallThrowsRatherThanRunUnlocked() {
		Orders[] kept = new Orders[1];
		this.runner.withPropertyValues("distlock.aop.mode=aspectj")
			.run((context) -> kept[0] = context.getBean(Orders.class));
		assertThatIllegalStateException().isThrownBy(() -> kept[0].payFromInside("o-5"))
			.withMessageContaining("Orders#pay")
			.withMessageContaining("distlock.aop.mode=aspectj");
		assertThat(kept[0].heldInStore).isEmpty();
	}

	@Test
	void aLockedBeanWhoseClassTheWeaverLeftOutFailsStartUpNamingIt() {
		this.runner.withPropertyValues("distlock.aop.mode=aspectj")
			.withBean(Invoices.class)
			.run((context) -> assertThat(context).getFailure()
				.hasMessageContaining("left out the class of Invoices#send")
				.hasMessageContaining("aop.xml"));
	}

	@Test
	void inProxyModeTheWovenAspectFailsStartUpSinceEachCallWouldLockTwice() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DataRedisAutoConfiguration.class,
					RedisLockEngineAutoConfiguration.class, DistLockAutoConfiguration.class))
			.withBean(Invoices.class)
			.withPropertyValues(redis.springProperties())
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("distlock.aop.mode is proxy")
				.hasMessageContaining("locked twice"));
	}

	/** While another thread holds the lock through the template, the woven call (wait time zero) cannot take it. */
	private static void assertBusyWhileHeldElsewhere(DistributedLockTemplate template, String name, String key,
			Runnable call) throws Exception {
		CountDownLatch held = new CountDownLatch(1);
		CountDownLatch done = new CountDownLatch(1);
		Thread holder = new Thread(() -> template.execute(LockSpec.of(name, key), (lock) -> {
			held.countDown();
			try {
				done.await();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			return null;
		}));
		holder.start();
		try {
			assertThat(held.await(10, TimeUnit.SECONDS)).as("the other holder got the lock").isTrue();
			assertThatExceptionOfType(LockAcquisitionException.class).isThrownBy(call::run);
		}
		finally {
			done.countDown();
			holder.join();
		}
	}

	@Configuration(proxyBeanMethods = false)
	static class Application {

		@Bean
		Orders orders() {
			return new Orders();
		}

	}

	static class Orders {

		final List<Boolean> heldInStore = new ArrayList<>();

		String payFromInside(String order) {
			return pay(order);
		}

		@DistributedLock(key = "#order", waitTime = "0s")
		public String pay(String order) {
			return held();
		}

		String refund(String order) {
			return refundPrivately(order);
		}

		@DistributedLock(name = "refund", key = "#order", waitTime = "0s")
		private String refundPrivately(String order) {
			return held();
		}

		private String held() {
			LockContext lock = LockContext.current();
			try (RespClient resp = redis.client()) {
				this.heldInStore.add(resp.get("distlock:{" + lock.name() + ":" + lock.key() + "}") != null);
			}
			return lock.name() + "/" + lock.key();
		}

	}

}
