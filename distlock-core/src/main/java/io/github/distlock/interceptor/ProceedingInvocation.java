package io.github.distlock.interceptor;

import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.ProxyMethodInvocation;

/** The rest of the proxy's chain; for reactive methods, once per subscription, from a copy of the invocation. */
record ProceedingInvocation(MethodInvocation invocation) implements LockAspectSupport.Invocation {

	@Override
	public @Nullable Object proceed() throws Throwable {
		return this.invocation.proceed();
	}

	@Override
	public LockAspectSupport.Invocation repeatable() {
		if (this.invocation instanceof ProxyMethodInvocation proxied) {
			// Copied before it proceeds, so each copy runs the interceptors after this one and the method.
			return () -> proxied.invocableClone().proceed();
		}
		return this;
	}

}
