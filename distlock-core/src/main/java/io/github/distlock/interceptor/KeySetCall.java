package io.github.distlock.interceptor;

import java.time.Duration;
import java.util.List;

import io.github.distlock.engine.LockRequest;

/**
 * Runs a call under every lock of a set of keys: all of them or none. The keys come in the one order every caller
 * uses ({@link LockKeyEvaluator#keys}), so calls naming the same keys in different orders cannot deadlock; each is
 * acquired inside the one before, with what is left of the call's wait, so the wait bounds the whole set. A key that
 * cannot be had unwinds the ones already held, releasing them, before the exception reaches the caller; a key lost
 * while the call runs fails the call as a single lost lock does.
 * <p>
 * One acquisition per key, in order: the engines' single-key operations, so every engine can do it. For a method
 * that returns a stage, every key is held until the stage completes and the stage the caller gets completes once all
 * are released.
 */
final class KeySetCall {

	private final LockExecution execution;

	private final LockOperation operation;

	private final List<String> keys;

	private final long deadlineNanos;

	private KeySetCall(LockExecution execution, LockOperation operation, List<String> keys) {
		this.execution = execution;
		this.operation = operation;
		this.keys = keys;
		this.deadlineNanos = System.nanoTime() + operation.waitTime().toNanos();
	}

	/** Runs the call under every key's lock; what the call returned. */
	static Object run(LockExecution execution, LockOperation operation, List<String> keys,
			LockAspectSupport.Invocation invocation) throws Throwable {
		return new KeySetCall(execution, operation, keys).from(0, invocation);
	}

	private Object from(int index, LockAspectSupport.Invocation invocation) throws Throwable {
		if (index == this.keys.size()) {
			return invocation.proceed();
		}
		Duration wait = Duration.ofNanos(Math.max(0, this.deadlineNanos - System.nanoTime()));
		LockRequest request = this.operation.request(this.keys.get(index), wait);
		// Each key's lock is held the way the method's return type holds one: until it returns, or until the stage
		// it returns completes; so the inner keys' stage is the outer key's work.
		return this.operation.call()
			.call(this.execution, request, this.operation.onLost(), () -> from(index + 1, invocation));
	}

}
