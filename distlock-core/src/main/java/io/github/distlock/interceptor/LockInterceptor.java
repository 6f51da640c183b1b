package io.github.distlock.interceptor;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.support.AopUtils;

/**
 * Adapts {@link LockAspectSupport} to AOP Alliance method interception.
 */
public class LockInterceptor implements MethodInterceptor {

	private final LockAspectSupport support;

	public LockInterceptor(LockAspectSupport support) {
		this.support = support;
	}

	@Override
	public Object invoke(MethodInvocation invocation) throws Throwable {
		Object target = invocation.getThis();
		Class<?> targetClass = (target != null) ? AopUtils.getTargetClass(target) : null;
		return this.support.invoke(invocation.getMethod(), target, invocation.getArguments(), targetClass,
				invocation::proceed);
	}

}
