package io.github.distlock.interceptor;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

import io.github.distlock.LockAcquisitionException;
import io.github.distlock.engine.LockEngine;
import io.github.distlock.engine.LockRequest;
import io.github.distlock.execution.CallWait;
import io.github.distlock.execution.LockExecution;
import io.github.distlock.execution.PreparedHandles;

/**
 * Runs a call under every lock of a set of keys: all of them or none. The keys come in the one order every caller
 * uses ({@link LockKeyEvaluator#keys}), so calls naming the same keys in different orders cannot deadlock; each is
 * acquired inside the one before, with what is left of the call's wait, so the wait bounds the whole set. A key that
 * cannot be had unwinds the ones already held, releasing them, before the exception reaches the caller, reporting
 * the whole call's wait (not only what was left of it for that key); a key lost while the call runs fails the call as
 * a single lost lock does.
 * <p>
 * When every key is free, an engine that can takes them all in one step ({@link LockEngine#tryAcquireAll}), and each
 * key's call enters its lock from there; otherwise one acquisition per key, in order, which every engine can do. For
 * a method that returns a stage, every key is held until the stage completes and the stage the caller gets completes
 * once all are released.
 */
final class KeySetCall {

	private final LockExecution execution;

	private final LockOperation operation;

	private final List<String> keys;

	private final long startNanos = System.nanoTime();

	/** Whether the method itself has been called: a failure to acquire from then on is the method's own. */
	private boolean proceeded;

	private KeySetCall(LockExecution execution, LockOperation operation, List<String> keys) {
		this.execution = execution;
		this.operation = operation;
		this.keys = keys;
	}

	/** Runs the call under every key's lock; what the call returned. */
	static @Nullable Object run(LockExecution execution, LockOperation operation, List<String> keys,
			LockAspectSupport.Invocation invocation) throws Throwable {
		KeySetCall call = new KeySetCall(execution, operation, keys);
		PreparedHandles together = call.acquireTogether();
		try {
			return call.from(0, invocation);
		}
		catch (LockAcquisitionException ex) {
			throw call.proceeded ? ex : CallWait.report(ex, call.startNanos);
		}
		finally {
			if (together != null) {
				execution.releaseUnused(together);
			}
		}
	}

	/**
	 * Takes every key at once where the engine can (one round trip when all are free), unless this thread holds one
	 * of them already: that one is entered, not taken.
	 */
	private @Nullable PreparedHandles acquireTogether() {
		List<LockRequest> requests = new ArrayList<>(this.keys.size());
		for (String key : this.keys) {
			LockRequest request = this.operation.request(key, Duration.ZERO);
			if (this.execution.isHeldByCurrentThread(request)) {
				return null;
			}
			requests.add(request);
		}
		return this.execution.acquireTogether(requests);
	}

	private @Nullable Object from(int index, LockAspectSupport.Invocation invocation) throws Throwable {
		if (index == this.keys.size()) {
			this.proceeded = true;
			return invocation.proceed();
		}
		long left = this.operation.waitTime().toNanos() - (System.nanoTime() - this.startNanos);
		Duration wait = Duration.ofNanos(Math.max(0, left));
		LockRequest request = this.operation.request(this.keys.get(index), wait);
		// Each key's lock is held the way the method's return type holds one: until it returns, or until the stage
		// it returns completes; so the inner keys' stage is the outer key's work.
		return this.operation.call()
			.call(this.execution, request, this.operation.onLost(), () -> from(index + 1, invocation));
	}

}
