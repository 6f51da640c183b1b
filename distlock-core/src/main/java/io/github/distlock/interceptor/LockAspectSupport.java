package io.github.distlock.interceptor;

import java.lang.reflect.Method;
import java.util.List;
import java.util.function.Supplier;

import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.SmartInitializingSingleton;

import io.github.distlock.LockAcquisitionException;
import io.github.distlock.LockFailureHandler;
import io.github.distlock.LockReentryException;
import io.github.distlock.engine.LockEngine;
import io.github.distlock.engine.LockHandle;
import io.github.distlock.engine.LockRequest;
import io.github.distlock.execution.LockExecution;

/**
 * Runs a locked method: finds its parsed lock, evaluates its key, refuses a nested call the lock does not let
 * re-enter, and hands the call to the {@link LockedCall} of its return type, which runs it on a
 * {@link LockExecution}: that acquires, enters, releases and handles a lost lock. A lock that stays busy is answered
 * by the method's fallback or the application's {@link LockFailureHandler}, if either exists.
 * <p>
 * Knows nothing of AOP: {@link LockInterceptor} adapts it to method interception.
 */
public class LockAspectSupport implements SmartInitializingSingleton {

	private final LockOperationSource operations;

	private final LockKeyEvaluator keys;

	private final LockExecution execution;

	private final LockFailureRecovery recovery;

	/**
	 * @param execution runs the calls; shared with the application's
	 * {@link io.github.distlock.DistributedLockTemplate}, so that each enters the locks the other holds
	 * @param failureHandler supplies, on the first call, the handler of busy locks for methods without a fallback,
	 * or null when a busy lock is thrown
	 */
	public LockAspectSupport(LockOperationSource operations, LockKeyEvaluator keys, LockExecution execution,
			Supplier<@Nullable LockFailureHandler> failureHandler) {
		this.operations = operations;
		this.keys = keys;
		this.execution = execution;
		this.recovery = new LockFailureRecovery(failureHandler);
	}

	/**
	 * A busy lock is thrown to the caller unless the method names a fallback.
	 * @param execution runs the calls; shared with the application's
	 * {@link io.github.distlock.DistributedLockTemplate}, so that each enters the locks the other holds
	 */
	public LockAspectSupport(LockOperationSource operations, LockKeyEvaluator keys, LockExecution execution) {
		this(operations, keys, execution, () -> null);
	}

	/**
	 * @param engine supplies the engine on first use, so creating the interceptor does not connect to the store
	 * @param observationRegistry supplies the registry that waiting and holding are observed with
	 */
	public LockAspectSupport(LockOperationSource operations, LockKeyEvaluator keys, Supplier<LockEngine> engine,
			Supplier<ObservationRegistry> observationRegistry) {
		this(operations, keys, new LockExecution(engine, observationRegistry));
	}

	/**
	 * Looks up the {@link LockFailureHandler} now that every bean exists, as Spring's caching infrastructure does its
	 * cache manager: two handlers without a primary one fail start-up rather than every later call.
	 */
	@Override
	public void afterSingletonsInstantiated() {
		this.recovery.resolve();
	}

	/**
	 * The innermost lock the current thread holds through {@code @DistributedLock}, or null. Backs
	 * {@link io.github.distlock.LockContext}.
	 */
	public static @Nullable LockHandle currentHandle() {
		return LockExecution.currentHandle();
	}

	/** The locked work itself: the rest of the interceptor chain. */
	@FunctionalInterface
	public interface Invocation {

		@Nullable Object proceed() throws Throwable;

		/**
		 * The same call, able to proceed once per subscription of a reactive method, each time from the lock's place in
		 * the interceptor chain; this one where it can proceed only once.
		 */
		default Invocation repeatable() {
			return this;
		}

	}

	public @Nullable Object invoke(Method method, @Nullable Object target, @Nullable Object[] args,
			@Nullable Class<?> targetClass, Invocation invocation) throws Throwable {
		LockOperation operation = this.operations.getOperation(method, targetClass);
		if (operation == null) {
			return invocation.proceed();
		}
		Object keyValue = this.keys.value(operation, target, args);
		if (LockKeyEvaluator.isMany(keyValue)) {
			return invokeKeySet(operation, LockKeyEvaluator.keys(operation, keyValue), target, args, invocation);
		}
		String key = LockKeyEvaluator.key(operation, keyValue);
		LockRequest request = operation.request(key);
		// The flag first: without Reactor the reactive call's class is never loaded.
		if (LockOperationSource.REACTOR_PRESENT && operation.call() instanceof ReactiveLockedCall reactive) {
			// A reactive method's lock is taken, re-entered or refused per subscription, not now.
			String nonReentrant = operation.contention().reentrant() ? null : operation.methodId();
			ReactiveLockedCall.Recovery recovery = this.recovery.recovers(operation)
					? (failure) -> this.recovery.recover(operation, target, args, failure) : null;
			return reactive.call(this.execution, request, operation.onLost(), nonReentrant, invocation, recovery);
		}
		if (!operation.contention().reentrant() && this.execution.isHeldByCurrentThread(request)) {
			throw new LockReentryException(request.name(), key, operation.methodId());
		}
		if (!this.recovery.recovers(operation)) {
			return operation.call().call(this.execution, request, operation.onLost(), invocation);
		}
		StartedInvocation started = new StartedInvocation(invocation);
		try {
			return operation.call().call(this.execution, request, operation.onLost(), started);
		}
		catch (LockAcquisitionException ex) {
			if (started.started || !LockFailureRecovery.isBusy(ex)) {
				// Thrown by the method itself (for another lock), or not a busy lock.
				throw ex;
			}
			return this.recovery.recover(operation, target, args, ex);
		}
	}

	/** A call whose key expression names several locks: all of them are held while it runs. */
	private @Nullable Object invokeKeySet(LockOperation operation, List<String> keys, @Nullable Object target,
			@Nullable Object[] args, Invocation invocation) throws Throwable {
		if (LockOperationSource.REACTOR_PRESENT && operation.call() instanceof ReactiveLockedCall) {
			throw new UnsupportedOperationException(operation.methodId() + ": the key (" + operation.keyText()
					+ ") names several locks, which a reactive or suspend method cannot hold yet; lock each key in "
					+ "a method of its own inside the pipeline instead");
		}
		if (!operation.contention().reentrant()) {
			for (String key : keys) {
				if (this.execution.isHeldByCurrentThread(operation.request(key))) {
					throw new LockReentryException(operation.name(), key, operation.methodId());
				}
			}
		}
		if (!this.recovery.recovers(operation)) {
			return KeySetCall.run(this.execution, operation, keys, invocation);
		}
		StartedInvocation started = new StartedInvocation(invocation);
		try {
			return KeySetCall.run(this.execution, operation, keys, started);
		}
		catch (LockAcquisitionException ex) {
			if (started.started || !LockFailureRecovery.isBusy(ex)) {
				throw ex;
			}
			return this.recovery.recover(operation, target, args, ex);
		}
	}

}
