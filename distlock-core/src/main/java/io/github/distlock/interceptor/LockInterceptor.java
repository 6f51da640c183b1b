package io.github.distlock.interceptor;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * Adapts {@link LockAspectSupport} to AOP Alliance method interception.
 */
public class LockInterceptor implements MethodInterceptor, SmartInitializingSingleton {

	private final LockAspectSupport support;

	public LockInterceptor(LockAspectSupport support) {
		this.support = support;
	}

	@Override
	public void afterSingletonsInstantiated() {
		this.support.afterSingletonsInstantiated();
	}

	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		Object target = invocation.getThis();
		Class<?> targetClass = (target != null) ? AopUtils.getTargetClass(target) : null;
		return this.support.invoke(invocation.getMethod(), target, invocation.getArguments(), targetClass,
				new Proceeding(invocation));
	}

	/** The rest of the chain; for reactive methods, once per subscription, from a copy of the invocation. */
	private record Proceeding(MethodInvocation invocation) implements LockAspectSupport.Invocation {

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

}
