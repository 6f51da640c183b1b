package io.github.distlock.interceptor;

import java.lang.reflect.Method;
import java.util.function.BiPredicate;

import org.springframework.aop.support.StaticMethodMatcherPointcut;

/**
 * The methods that carry a declaration an advisor's source finds (and checks, so an invalid one fails as the bean is
 * created): how each of distlock's advisors picks its methods.
 */
final class DeclarationPointcut extends StaticMethodMatcherPointcut {

	private final BiPredicate<Method, Class<?>> declared;

	/** @param declared whether the method, as seen through the target class, carries the declaration */
	DeclarationPointcut(BiPredicate<Method, Class<?>> declared) {
		this.declared = declared;
	}

	@Override
	public boolean matches(Method method, Class<?> targetClass) {
		return this.declared.test(method, targetClass);
	}

}
