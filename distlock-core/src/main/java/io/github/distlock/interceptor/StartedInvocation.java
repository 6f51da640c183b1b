package io.github.distlock.interceptor;

import org.jspecify.annotations.Nullable;

/**
 * Remembers whether the method started, so that a busy lock the method itself met is told from its own lock being
 * busy. Only calls that can recover from a busy lock pay for it.
 */
final class StartedInvocation implements LockAspectSupport.Invocation {

	private final LockAspectSupport.Invocation invocation;

	boolean started;

	StartedInvocation(LockAspectSupport.Invocation invocation) {
		this.invocation = invocation;
	}

	@Override
	public @Nullable Object proceed() throws Throwable {
		this.started = true;
		return this.invocation.proceed();
	}

}
