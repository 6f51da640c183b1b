package io.github.distlock.interceptor;

import org.aopalliance.aop.Advice;
import org.springframework.aop.Advisor;
import org.springframework.aop.framework.Advised;
import org.springframework.aop.interceptor.AsyncExecutionInterceptor;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.resilience.annotation.EnableResilientMethods;
import org.springframework.resilience.retry.AbstractRetryInterceptor;

/**
 * Puts the lock outside the advice of Spring Framework's resilience annotations ({@code @Retryable},
 * {@code @ConcurrencyLimit}) on a proxy, so that all attempts of a retried method run under one acquisition of its
 * lock, and a caller takes the lock before it queues for a concurrency permit.
 * <p>
 * The lock advisor is applied by the auto-proxy creator, in the order of its {@code order}. The post-processors
 * behind {@link EnableResilientMethods} come later and insert their advisors in front of every advisor the proxy
 * already has, whatever its order; left alone, each retry would acquire and release the lock by itself. This
 * post-processor is not {@link org.springframework.core.Ordered}, so it runs after all of them, and moves the lock
 * advisor to just in front of the outermost resilience advisor. It never moves it past {@code @Async}'s advisor: the
 * lock is still taken on the executor's thread, around the work. Frozen proxies are left as they are.
 */
public class LockOutsideResilienceAdvice implements BeanPostProcessor {

	/** The resilience interceptors other than retry are private classes of the annotations' package. */
	private static final String RESILIENCE_ANNOTATIONS = EnableResilientMethods.class.getPackageName();

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		if (bean instanceof Advised advised && !advised.isFrozen()) {
			moveLockOutward(advised);
		}
		return bean;
	}

	private static void moveLockOutward(Advised advised) {
		Advisor[] advisors = advised.getAdvisors();
		int lock = indexOfLock(advisors);
		if (lock < 0) {
			return;
		}
		int outermost = lock;
		for (int i = lock - 1; i >= 0 && !(advisors[i].getAdvice() instanceof AsyncExecutionInterceptor); i--) {
			if (isResilience(advisors[i].getAdvice())) {
				outermost = i;
			}
		}
		if (outermost < lock) {
			advised.removeAdvisor(lock);
			advised.addAdvisor(outermost, advisors[lock]);
		}
	}

	private static int indexOfLock(Advisor[] advisors) {
		for (int i = 0; i < advisors.length; i++) {
			if (advisors[i] instanceof LockAdvisor) {
				return i;
			}
		}
		return -1;
	}

	private static boolean isResilience(Advice advice) {
		return advice instanceof AbstractRetryInterceptor
				|| RESILIENCE_ANNOTATIONS.equals(advice.getClass().getPackageName());
	}

}
