package io.github.distlock.interceptor;

import java.lang.reflect.Method;
import java.util.function.Supplier;

import io.micrometer.observation.ObservationRegistry;

import io.github.distlock.engine.LockEngine;
import io.github.distlock.engine.LockHandle;

/**
 * Runs a locked method: finds its parsed lock, evaluates its key, and hands the call to the {@link LockedCall} of
 * its return type, which runs it on a {@link LockExecution}: that acquires, enters, releases and handles a lost
 * lock.
 * <p>
 * Knows nothing of AOP: {@link LockInterceptor} adapts it to method interception.
 */
public class LockAspectSupport {

	private final LockOperationSource operations;

	private final LockKeyEvaluator keys;

	private final LockExecution execution;

	/**
	 * @param execution runs the calls; shared with the application's
	 * {@link io.github.distlock.DistributedLockTemplate}, so that each enters the locks the other holds
	 */
	public LockAspectSupport(LockOperationSource operations, LockKeyEvaluator keys, LockExecution execution) {
		this.operations = operations;
		this.keys = keys;
		this.execution = execution;
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
	 * The innermost lock the current thread holds through {@code @DistributedLock}, or null. Backs
	 * {@link io.github.distlock.LockContext}.
	 */
	public static LockHandle currentHandle() {
		return LockExecution.currentHandle();
	}

	/** The locked work itself: the rest of the interceptor chain. */
	@FunctionalInterface
	public interface Invocation {

		Object proceed() throws Throwable;

	}

	public Object invoke(Method method, Object target, Object[] args, Class<?> targetClass, Invocation invocation)
			throws Throwable {
		LockOperation operation = this.operations.getOperation(method, targetClass);
		if (operation == null) {
			return invocation.proceed();
		}
		String key = this.keys.evaluate(operation, target, args);
		return operation.call().call(this.execution, operation.request(key), operation.onLost(), invocation);
	}

}
