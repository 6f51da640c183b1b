package io.github.distlock.interceptor;

import org.aopalliance.aop.Advice;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;

/**
 * Applies {@link LeaderOnlyInterceptor} to the methods that carry {@link io.github.distlock.leader.LeaderOnly}; an
 * invalid declaration fails as its bean is created.
 */
public class LeaderOnlyAdvisor extends AbstractPointcutAdvisor {

	private final transient Pointcut pointcut;

	private final transient LeaderOnlyInterceptor interceptor;

	/**
	 * @param order the advisor's order: before the lock advisor's, so a call skipped here takes no lock
	 */
	public LeaderOnlyAdvisor(LeaderOnlySource operations, LeaderOnlyInterceptor interceptor, int order) {
		this.pointcut = new DeclarationPointcut(
				(method, targetClass) -> operations.getOperation(method, targetClass) != null);
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
