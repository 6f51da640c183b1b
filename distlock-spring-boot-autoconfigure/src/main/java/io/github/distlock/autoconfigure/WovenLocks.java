package io.github.distlock.autoconfigure;

import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;

import org.aspectj.lang.Aspects;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.SmartInitializingSingleton;

import io.github.distlock.aspectj.DistributedLockAspect;
import io.github.distlock.interceptor.LockAspectSupport;
import io.github.distlock.interceptor.LockOperation;
import io.github.distlock.interceptor.LockOperationSource;

/**
 * Hands the application's lock infrastructure to the aspect AspectJ wove into the locked methods, once every bean
 * exists, and takes it back when the application stops. Fails start-up when no weaver has woven the aspect, or has
 * left out the class of a bean's locked method: those methods would run unlocked.
 */
final class WovenLocks implements SmartInitializingSingleton, DisposableBean {

	/** The prefix of the members AspectJ adds to every class it weaves advice into (its join points, closures). */
	private static final String WOVEN_MEMBER = "ajc$";

	private final LockAspectSupport support;

	private final LockOperationSource operations;

	WovenLocks(LockAspectSupport support, LockOperationSource operations) {
		this.support = support;
		this.operations = operations;
		if (!Aspects.hasAspect(DistributedLockAspect.class)) {
			throw new LockSetupException("distlock.aop.mode=aspectj, but no AspectJ weaver has woven "
					+ "DistributedLockAspect into this JVM, so every @DistributedLock method would run unlocked.",
					"Start the JVM with -javaagent:/path/to/aspectjweaver.jar --add-opens "
							+ "java.base/java.lang=ALL-UNNAMED (org.aspectj:aspectjweaver, which distlock-aspectj "
							+ "brings), and if an aop.xml of the application lists the classes to weave (<include "
							+ "within=...>), list io.github.distlock.aspectj.* too; or remove distlock.aop.mode to "
							+ "lock through proxies.");
		}
	}

	/**
	 * Checks that the weaver wove every bean's locked methods (the beans' declarations were all read by now), then
	 * hands the aspect its infrastructure.
	 */
	@Override
	public void afterSingletonsInstantiated() {
		Set<String> unwoven = new TreeSet<>();
		for (LockOperation operation : this.operations.parsedOperations()) {
			if (!isWoven(operation.method().getDeclaringClass())) {
				unwoven.add(operation.methodId());
			}
		}
		if (!unwoven.isEmpty()) {
			throw new LockSetupException("distlock.aop.mode=aspectj, but the AspectJ weaver left out the class of "
					+ String.join(", ", unwoven) + ", which would run unlocked.",
					"List its package in the <include within=...> of the application's META-INF/aop.xml.");
		}
		this.support.afterSingletonsInstantiated();
		Aspects.aspectOf(DistributedLockAspect.class).configure(this.support);
	}

	private static boolean isWoven(Class<?> type) {
		return Arrays.stream(type.getDeclaredFields()).anyMatch((field) -> field.getName().startsWith(WOVEN_MEMBER));
	}

	@Override
	public void destroy() {
		Aspects.aspectOf(DistributedLockAspect.class).release(this.support);
	}

	/** Fails start-up in proxy mode when the aspect is woven: each call would take its lock twice. */
	static final class NotWovenInProxyMode {

		NotWovenInProxyMode() {
			if (Aspects.hasAspect(DistributedLockAspect.class)) {
				throw new LockSetupException("distlock's AspectJ aspect is woven into this JVM (distlock-aspectj "
						+ "and an AspectJ weaver), but distlock.aop.mode is proxy, so every @DistributedLock method "
						+ "would be locked twice.", "Set distlock.aop.mode=aspectj, or leave distlock-aspectj out.");
			}
		}

	}

}
