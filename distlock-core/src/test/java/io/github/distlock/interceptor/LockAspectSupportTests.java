package io.github.distlock.interceptor;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.github.distlock.DistributedLock;
import io.github.distlock.LockAcquisitionException;
import io.github.distlock.OnLost;
import io.github.distlock.engine.LockEngine;
import io.github.distlock.engine.LockHandle;
import io.github.distlock.engine.LockRequest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Calls through {@link LockAspectSupport} with an engine that answers at once: nesting re-enters, distinct keys
 * acquire, and the thread keeps nothing once its calls are done.
 */
class LockAspectSupportTests {

	private final List<String> acquired = new ArrayList<>();

	private final List<String> released = new ArrayList<>();

	private boolean refuse;

	private final LockEngine engine = this::acquire;

	private final LockAspectSupport support = new LockAspectSupport(
			new LockOperationSource(new LockDefaults(Duration.ofSeconds(30), Duration.ZERO, null, OnLost.ROLLBACK),
					null),
			new LockKeyEvaluator(null), () -> this.engine, () -> ObservationRegistry.NOOP);

	private final Method pay = method("pay");

	@AfterEach
	void threadHoldsNothingAfterwards() {
		assertThat(HeldLocks.peek()).isNull();
		assertThat(LockAspectSupport.currentHandle()).isNull();
	}

	@Test
	void aNestedCallForTheSameKeyAcquiresOnce() throws Throwable {
		Object result = pay("42", () -> pay("42", () -> LockAspectSupport.currentHandle().key()));

		assertThat(result).isEqualTo("42");
		assertThat(this.acquired).containsExactly("42");
		assertThat(this.released).containsExactly("42");
	}

	@Test
	void aNestedCallForAnotherKeyAcquiresItAndTheOuterLockIsInnermostAgainAfterwards() throws Throwable {
		Object result = pay("1", () -> {
			pay("2", () -> null);
			return LockAspectSupport.currentHandle().key();
		});

		assertThat(result).isEqualTo("1");
		assertThat(this.acquired).containsExactly("1", "2");
		assertThat(this.released).containsExactly("2", "1");
	}

	@Test
	void aFailedAcquisitionLeavesNothingOnTheThread() {
		this.refuse = true;

		assertThatExceptionOfType(LockAcquisitionException.class).isThrownBy(() -> pay("42", () -> null));
		assertThat(this.acquired).isEmpty();
	}

	private Object pay(String key, LockAspectSupport.Invocation body) throws Throwable {
		return this.support.invoke(this.pay, this, new Object[] { key }, LockAspectSupportTests.class, body);
	}

	private LockHandle acquire(LockRequest request) {
		if (this.refuse) {
			throw new LockAcquisitionException(request.name(), request.key(), request.waitTime(), null);
		}
		this.acquired.add(request.key());
		return new StubLockHandle(request.name(), request.key(), () -> this.released.add(request.key()));
	}

	@DistributedLock(key = "#id")
	public void pay(String id) {
	}

	private static Method method(String name) {
		try {
			return LockAspectSupportTests.class.getMethod(name, String.class);
		}
		catch (NoSuchMethodException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
