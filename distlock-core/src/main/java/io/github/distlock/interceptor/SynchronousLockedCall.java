package io.github.distlock.interceptor;

import org.jspecify.annotations.Nullable;

import io.github.distlock.OnLost;
import io.github.distlock.engine.LockRequest;
import io.github.distlock.execution.LockExecution;

/**
 * A method whose work is done when it returns: the lock is held while it runs. Also the choice for {@code @Async}
 * methods, whose advice runs before the lock's, so the body the lock wraps already runs on the executor's thread.
 */
final class SynchronousLockedCall implements LockedCall {

	static final SynchronousLockedCall INSTANCE = new SynchronousLockedCall();

	private SynchronousLockedCall() {
	}

	@Override
	public @Nullable Object call(LockExecution execution, LockRequest request, OnLost onLost,
			LockAspectSupport.Invocation method) throws Throwable {
		return execution.run(request, onLost, method::proceed);
	}

}
