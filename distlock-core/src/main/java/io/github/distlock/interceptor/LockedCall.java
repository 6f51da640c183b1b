package io.github.distlock.interceptor;

import org.jspecify.annotations.Nullable;

import io.github.distlock.OnLost;
import io.github.distlock.engine.LockRequest;
import io.github.distlock.execution.LockExecution;

/**
 * How a locked method is run for its return type: how long its lock must be held. Chosen once, when the method's
 * declaration is parsed ({@link LockOperationSource}), so a call does not inspect its result to find out.
 */
public interface LockedCall {

	/**
	 * Runs the method under the lock on the given execution.
	 * @return what the caller receives in place of the method's own result
	 */
	@Nullable Object call(LockExecution execution, LockRequest request, OnLost onLost,
			LockAspectSupport.Invocation method) throws Throwable;

}
