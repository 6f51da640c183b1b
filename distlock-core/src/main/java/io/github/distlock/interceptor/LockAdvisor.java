package io.github.distlock.interceptor;

import java.lang.reflect.Method;

import org.aopalliance.aop.Advice;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.StaticMethodMatcherPointcut;

/**
 * Applies a {@link LockInterceptor} to every method that {@link LockOperationSource} finds a lock on.
 */
public class LockAdvisor extends AbstractPointcutAdvisor {

	private final transient Pointcut pointcut;

	private final transient LockInterceptor interceptor;

	public LockAdvisor(LockOperationSource operations, LockInterceptor interceptor, int order) {
		this.pointcut = new StaticMethodMatcherPointcut() {

			@Override
			public boolean matches(Method method, Class<?> targetClass) {
				return operations.getOperation(method, targetClass) != null;
			}

		};
		this.interceptor = interceptor;
		setOrder(order);
	}

	@Override
	public Pointcut getPointcut() {
		return this.pointcut;
	}

	@Override
	public Advice getAdvice() {
		return this.interceptor;
	}

}
