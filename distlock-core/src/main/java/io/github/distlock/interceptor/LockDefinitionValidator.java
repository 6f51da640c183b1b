package io.github.distlock.interceptor;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

import io.github.distlock.DistributedLock;

/**
 * Parses every {@code @DistributedLock} of every bean as the bean is created, so an invalid declaration (or one
 * on a method no proxy can intercept) stops the application from starting instead of failing, or silently not
 * locking, on some later call.
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
			ReflectionUtils.doWithMethods(type, (method) -> this.operations.get().getOperation(method, type),
					(method) -> AnnotatedElementUtils.hasAnnotation(method, DistributedLock.class));
		}
		return bean;
	}

}
