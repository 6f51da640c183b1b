package io.github.distlock.interceptor;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.core.annotation.MergedAnnotation;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.core.annotation.MergedAnnotations.SearchStrategy;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

import io.github.distlock.DistributedLock;
import io.github.distlock.LockDefinitionException;

/**
 * Parses every {@code @DistributedLock} of every bean as the bean is created, so an invalid declaration (one on a
 * method no proxy can intercept, a missing or unfit fallback, two locks on one method, a lock on a type) stops the
 * application from starting instead of failing, or silently not locking, on some later call.
 */
public class LockDefinitionValidator implements BeanPostProcessor {

	private final Supplier<LockOperationSource> operations;

	private final Set<Class<?>> checked = ConcurrentHashMap.newKeySet();

	public LockDefinitionValidator(Supplier<LockOperationSource> operations) {
		this.operations = operations;
	}

	@Override
	public Object postProcessBeforeInitialization(Object bean, String beanName) {
		Class<?> type = ClassUtils.getUserClass(bean);
		if (AnnotationUtils.isCandidateClass(type, DistributedLock.class) && this.checked.add(type)) {
			refuseOnType(type);
			ReflectionUtils.doWithMethods(type, (method) -> this.operations.get().getOperation(method, type),
					(method) -> AnnotatedElementUtils.hasAnnotation(method, DistributedLock.class));
		}
		return bean;
	}

	/**
	 * A lock on a type, which a composed annotation allowed there can carry: it would leave it unclear which
	 * methods it locks, and locks none, so it is refused rather than ignored.
	 */
	private static void refuseOnType(Class<?> type) {
		MergedAnnotation<DistributedLock> onType = MergedAnnotations.from(type, SearchStrategy.TYPE_HIERARCHY)
			.get(DistributedLock.class);
		if (onType.isPresent()) {
			String through = (onType.getDistance() > 0) ? " (through @" + onType.getMetaTypes().get(0).getSimpleName()
					+ ")" : "";
			throw new LockDefinitionException(type.getSimpleName(), "@DistributedLock" + through + " is on the type, "
					+ "where it locks no method; put it on each method to lock, and the class's shared settings in "
					+ "@DistributedLockConfig", null);
		}
	}

}
