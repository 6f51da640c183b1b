package io.github.distlock.aspectj;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.micrometer.observation.ObservationRegistry;
import org.aspectj.lang.Aspects;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.springframework.context.annotation.AdviceMode;

import io.github.distlock.LockAcquisitionException;
import io.github.distlock.OnLost;
import io.github.distlock.engine.LockHandle;
import io.github.distlock.engine.LockRequest;
import io.github.distlock.execution.LockDefaults;
import io.github.distlock.fixtures.redis.RedisExtension;
import io.github.distlock.fixtures.redis.RespClient;
import io.github.distlock.interceptor.LockAspectSupport;
import io.github.distlock.interceptor.LockKeyEvaluator;
import io.github.distlock.interceptor.LockOperationSource;
import io.github.distlock.redis.RedisLockEngine;
import io.github.distlock.redis.RedisLockKeys;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * The aspect, woven at load time by the agent this module's tests run with, locks on a real Redis what no proxy can:
 * a call from inside the method's own class, and private, final, static and composed-annotation methods. Each is
 * shown locked twice over: the store has the lock while the method runs, and a lock another instance holds keeps
 * the method from running.
 */
class DistributedLockAspectTests {

	@RegisterExtension
	static final RedisExtension redis = RedisExtension.anyServer();

	private static final RedisLockKeys keys = new RedisLockKeys("distlock");

	private static final List<RedissonClient> clients = new ArrayList<>();

	private static RedisLockEngine engine;

	/** Another instance of the application: its own connection, its own engine. */
	private static RedisLockEngine other;

	private static LockAspectSupport support;

	private final Shop shop = new Shop();

	@BeforeAll
	static void configureAspect() {
		engine = new RedisLockEngine(client(), "distlock", null, (lost) -> {
		});
		other = new RedisLockEngine(client(), "distlock", null, (lost) -> {
		});
		LockOperationSource operations = new LockOperationSource(
				new LockDefaults(Duration.ofSeconds(30), Duration.ZERO, null, OnLost.ROLLBACK), null, AdviceMode.ASPECTJ);
		support = new LockAspectSupport(operations, new LockKeyEvaluator(null), () -> engine,
				() -> ObservationRegistry.NOOP);
		Aspects.aspectOf(DistributedLockAspect.class).configure(support);
	}

	@AfterAll
	static void stop() {
		Aspects.aspectOf(DistributedLockAspect.class).release(support);
		engine.close();
		other.close();
		clients.forEach((client) -> client.shutdown(0, 2, TimeUnit.SECONDS));
	}

	@AfterEach
	void nothingMoreInside() {
		Shop.inside = () -> {
		};
	}

	@Test
	void aCallFromInsideTheMethodsOwnClassIsLocked() {
		assertLocked("Shop.buy", "apple", () -> this.shop.buyFromInside("apple"));
	}

	@Test
	void aPrivateMethodIsLocked() {
		assertLocked("restock", "pear", () -> this.shop.restock("pear"));
	}

	@Test
	void aFinalMethodIsLocked() {
		assertLocked("price", "plum", () -> this.shop.price("plum"));
	}

	@Test
	void aStaticMethodIsLocked() {
		assertLocked("audit", "2026-11-28", () -> Shop.audit("2026-11-28"));
	}

	@Test
	void aMethodAnnotatedThroughAComposedAnnotationIsLocked() {
		assertLocked("ship", "fig", () -> this.shop.ship("fig"));
	}

	@Test
	void aWovenMethodThatNoApplicationConfiguredThrowsRatherThanRunUnlocked() {
		DistributedLockAspect aspect = Aspects.aspectOf(DistributedLockAspect.class);
		aspect.release(support);
		try {
			Shop.inside = () -> {
				throw new AssertionError("ran unlocked");
			};
			assertThatIllegalStateException().isThrownBy(() -> this.shop.buy("kiwi"))
				.withMessageContaining("Shop#buy")
				.withMessageContaining("distlock.aop.mode=aspectj");
		}
		finally {
			aspect.configure(support);
		}
	}

	/**
	 * While the method runs the store holds its lock; while another instance holds it, the method does not run (its
	 * wait time is zero), and once that instance lets go it runs again.
	 */
	private void assertLocked(String name, String key, Supplier<String> call) {
		List<Boolean> heldInStore = new ArrayList<>();
		Shop.inside = () -> heldInStore.add(isHeldInStore(name, key));
		assertThat(call.get()).isEqualTo(name + "/" + key);
		assertThat(heldInStore).containsExactly(true);
		assertThat(isHeldInStore(name, key)).as("held after the call").isFalse();

		LockHandle elsewhere = acquire(other, name, key);
		try {
			Shop.inside = () -> {
				throw new AssertionError("ran while another instance held " + name + "/" + key);
			};
			assertThatExceptionOfType(LockAcquisitionException.class).isThrownBy(call::get);
		}
		finally {
			elsewhere.release();
		}
		Shop.inside = () -> {
		};
		assertThat(call.get()).isEqualTo(name + "/" + key);
	}

	private static LockHandle acquire(RedisLockEngine engine, String name, String key) {
		try {
			return engine.acquire(new LockRequest(name, key, Duration.ofSeconds(30), Duration.ZERO, false, null));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	private static boolean isHeldInStore(String name, String key) {
		try (RespClient resp = redis.client()) {
			return resp.get(keys.lockKey(name, key)) != null;
		}
	}

	private static RedissonClient client() {
		Config config = new Config();
		config.setUsername(redis.server().username());
		config.setPassword(redis.server().password());
		config.useSingleServer().setAddress(redis.url()).setTimeout(3000);
		RedissonClient client = Redisson.create(config);
		clients.add(client);
		return client;
	}

}
