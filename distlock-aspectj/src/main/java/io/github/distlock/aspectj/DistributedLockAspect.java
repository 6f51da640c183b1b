package io.github.distlock.aspectj;

import java.lang.reflect.Method;

import org.aspectj.lang.ProceedingJoinPoint;
import org.aspectj.lang.annotation.Around;
import org.aspectj.lang.annotation.Aspect;
import org.aspectj.lang.annotation.DeclarePrecedence;
import org.aspectj.lang.reflect.MethodSignature;
import org.jspecify.annotations.Nullable;
import org.springframework.util.ClassUtils;

import io.github.distlock.interceptor.LockAspectSupport;

/**
 * Locks every method annotated with {@link io.github.distlock.DistributedLock} (directly or through a composed
 * annotation) where AspectJ weaves it into the method itself, rather than where a proxy intercepts calls: a call
 * from inside the method's own class is locked, and so is a private, final or static method.
 * <p>
 * AspectJ makes one instance of this aspect per JVM; the application configures it once its lock infrastructure
 * exists ({@link #configure}), as Spring Boot's auto-configuration does under {@code distlock.aop.mode=aspectj}. A
 * woven method called before that, or after its application stopped, throws rather than run unlocked. Only one
 * application context at a time can drive it, as with Spring's own AspectJ aspects.
 * <p>
 * It takes precedence over every other aspect woven into the same method, so the lock is held around a transaction
 * woven by AspectJ, its commit included.
 */
@Aspect
@DeclarePrecedence("io.github.distlock.aspectj.DistributedLockAspect, *")
public class DistributedLockAspect {

	private volatile @Nullable LockAspectSupport support;

	/** Locks the woven methods with this support from now on, in place of any earlier one. */
	public void configure(LockAspectSupport support) {
		this.support = support;
	}

	/** Stops locking with this support, if it is still the one configured; woven methods then throw. */
	public void release(LockAspectSupport support) {
		if (this.support == support) {
			this.support = null;
		}
	}

	@Around("execution(@io.github.distlock.DistributedLock * *(..)) "
			+ "|| execution(@(@io.github.distlock.DistributedLock *) * *(..))")
	public @Nullable Object lock(ProceedingJoinPoint call) throws Throwable {
		Method method = ((MethodSignature) call.getSignature()).getMethod();
		LockAspectSupport current = this.support;
		if (current == null) {
			throw new IllegalStateException(method.getDeclaringClass().getSimpleName() + "#" + method.getName()
					+ " is locked by distlock's AspectJ aspect, which no running application has configured: set "
					+ "distlock.aop.mode=aspectj in the application, or leave distlock-aspectj out of it to lock "
					+ "through proxies");
		}
		Object target = call.getTarget();
		Class<?> targetClass = (target != null) ? ClassUtils.getUserClass(target) : method.getDeclaringClass();
		// AspectJ lets around advice proceed more than once, so a reactive method proceeds once per subscription.
		return current.invoke(method, target, call.getArgs(), targetClass, call::proceed);
	}

}
