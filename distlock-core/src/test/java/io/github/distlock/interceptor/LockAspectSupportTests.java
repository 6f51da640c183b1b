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
import io.github.distlock.LockFailureHandler;
import io.github.distlock.OnLost;
import io.github.distlock.engine.LockEngine;
import io.github.distlock.engine.LockHandle;
import io.github.distlock.engine.LockRequest;
import io.github.distlock.execution.LockDefaults;
import io.github.distlock.execution.LockExecution;
import io.github.distlock.execution.ThreadHeldLocks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Calls through {@link LockAspectSupport} with an engine that answers at once: nesting re-enters, distinct keys
 * acquire, the thread keeps nothing once its calls are done, and only a busy lock (not an outage) reaches a fallback
 * or the failure handler.
 */
class LockAspectSupportTests {

	private final List<String> acquired = new ArrayList<>();

	private final List<String> released = new ArrayList<>();

	private boolean refuse;

	/** Whether the engine's wait is interrupted at once. */
	private boolean interrupted;

	/** What a refused acquisition gives as its cause: null for a busy lock, else an outage or an interruption. */
	private Throwable refusalCause;

	private final List<String> recoveries = new ArrayList<>();

	private final LockFailureHandler handler = (failure, method, args) -> {
		this.recoveries.add("handler " + method.getName());
		return "handled";
	};

	private final LockEngine engine = this::acquire;

	private final LockAspectSupport support = new LockAspectSupport(
			new LockOperationSource(new LockDefaults(Duration.ofSeconds(30), Duration.ZERO, null, OnLost.ROLLBACK),
					null),
			new LockKeyEvaluator(null), () -> this.engine, () -> ObservationRegistry.NOOP);

	private final LockAspectSupport handled = new LockAspectSupport(
			new LockOperationSource(new LockDefaults(Duration.ofSeconds(30), Duration.ZERO, null, OnLost.ROLLBACK),
					null),
			new LockKeyEvaluator(null), new LockExecution(() -> this.engine, () -> ObservationRegistry.NOOP),
			() -> this.handler);

	private final Method pay = method("pay");

	@AfterEach
	void threadHoldsNothingAfterwards() {
		assertThat(ThreadHeldLocks.none()).isTrue();
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

	@Test
	void aBusyLockIsAnsweredByTheFallbackElseTheHandler() throws Throwable {
		this.refuse = true;

		assertThat(call(this.handled, "payOrLater", "42")).isEqualTo("later 42");
		assertThat(call(this.handled, "payOrHandle", "42")).isEqualTo("handled");
		assertThat(this.recoveries).containsExactly("fallback", "handler payOrHandle");
	}

	@Test
	void anOutageOrAnInterruptedWaitIsNeverRecoveredFrom() {
		this.refuse = true;
		for (Throwable cause : List.of(new IllegalStateException("Redis unreachable"), new InterruptedException())) {
			this.refusalCause = cause;
			assertThatExceptionOfType(LockAcquisitionException.class)
				.isThrownBy(() -> call(this.handled, "payOrLater", "42"))
				.withCause(cause);
			assertThatExceptionOfType(LockAcquisitionException.class)
				.isThrownBy(() -> call(this.handled, "payOrHandle", "42"))
				.withCause(cause);
		}
		assertThat(this.recoveries).isEmpty();
	}

	/**
	 * The wait a failure reports is the call's, measured where it began: this engine claims the whole 30 s wait time
	 * at once (as an engine that fails after the grant has no wait of its own to give), and an interrupted wait used
	 * to claim the whole wait time too.
	 */
	@Test
	void aFailureReportsHowLongTheCallWaitedNotWhatTheEngineClaims() {
		this.refuse = true;
		long start = System.nanoTime();
		assertThatExceptionOfType(LockAcquisitionException.class)
			.isThrownBy(() -> call(this.support, "payWithin30s", "42"))
			.satisfies((ex) -> assertThat(ex.getWaited()).isLessThanOrEqualTo(Duration.ofNanos(System.nanoTime() - start)))
			.satisfies((ex) -> assertThat(ex.getMessage()).contains("within " + ex.getWaited().toMillis() + " ms"));

		this.refuse = false;
		this.interrupted = true;
		long interruptedAt = System.nanoTime();
		try {
			assertThatExceptionOfType(LockAcquisitionException.class)
				.isThrownBy(() -> call(this.support, "payWithin30s", "42"))
				.withCauseInstanceOf(InterruptedException.class)
				.satisfies((ex) -> assertThat(ex.getWaited())
					.isLessThanOrEqualTo(Duration.ofNanos(System.nanoTime() - interruptedAt)));
			assertThat(Thread.currentThread().isInterrupted()).as("the interruption kept").isTrue();
		}
		finally {
			Thread.interrupted();
		}
	}

	@Test
	void withoutHandlerABusyLockWithoutFallbackIsThrown() {
		this.refuse = true;

		assertThatExceptionOfType(LockAcquisitionException.class)
			.isThrownBy(() -> call(this.support, "payOrHandle", "42"));
		assertThat(this.recoveries).isEmpty();
	}

	private Object call(LockAspectSupport support, String methodName, String key) throws Throwable {
		Method method = method(methodName);
		return support.invoke(method, this, new Object[] { key }, LockAspectSupportTests.class,
				() -> method.invoke(this, key));
	}

	@DistributedLock(key = "#id", fallback = "payLater")
	public String payOrLater(String id) {
		return "paid " + id;
	}

	String payLater(String id) {
		this.recoveries.add("fallback");
		return "later " + id;
	}

	@DistributedLock(key = "#id", waitTime = "30s")
	public String payWithin30s(String id) {
		return "paid " + id;
	}

	@DistributedLock(key = "#id")
	public String payOrHandle(String id) {
		return "paid " + id;
	}

	private Object pay(String key, LockAspectSupport.Invocation body) throws Throwable {
		return this.support.invoke(this.pay, this, new Object[] { key }, LockAspectSupportTests.class, body);
	}

	private LockHandle acquire(LockRequest request) throws InterruptedException {
		if (this.interrupted) {
			throw new InterruptedException();
		}
		if (this.refuse) {
			throw new LockAcquisitionException(request.name(), request.key(), request.waitTime(), this.refusalCause);
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
