package io.github.distlock.interceptor;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
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
				new ProceedingInvocation(invocation));
	}

}
