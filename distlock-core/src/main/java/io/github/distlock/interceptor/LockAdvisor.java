package io.github.distlock.interceptor;

import org.aopalliance.aop.Advice;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * Applies a {@link LockInterceptor} to every method that {@link LockOperationSource} finds a lock on.
 */
public class LockAdvisor extends AbstractPointcutAdvisor implements SmartInitializingSingleton {

	private final transient Pointcut pointcut;

	private final transient LockInterceptor interceptor;

	private final transient LockOperationSource operations;

	public LockAdvisor(LockOperationSource operations, LockInterceptor interceptor, int order) {
		this.operations = operations;
		this.pointcut = new DeclarationPointcut(
				(method, targetClass) -> operations.getOperation(method, targetClass) != null);
		this.interceptor = interceptor;
		setOrder(order);
	}

	/**
	 * Lets the interceptor look up the beans it uses once they all exist, so a missing one fails start-up; warns of
	 * locked methods that their own class calls, which no proxy sees.
	 */
	@Override
	public void afterSingletonsInstantiated() {
		this.interceptor.afterSingletonsInstantiated();
		SelfInvocations.warnAbout(this.operations.parsedOperations());
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
