package io.github.distlock.interceptor;

import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Collectors;

import org.springframework.core.ResolvableType;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

import io.github.distlock.DistributedLock;
import io.github.distlock.LockAcquisitionException;
import io.github.distlock.LockDefinitionException;

/**
 * Finds the method a {@link DistributedLock#fallback()} names and checks that it can stand in for the locked method,
 * so that a mistake fails start-up, naming both methods, rather than the first call that cannot get the lock.
 * <p>
 * The fallback is a method of the bean's class or a superclass (any visibility), with the locked method's
 * parameter types, optionally followed by one parameter that accepts a {@link LockAcquisitionException}; it
 * returns a type the locked method could return. It must not be the locked method, nor carry a lock of its own: it
 * is called on the bean itself, where that lock would not apply.
 */
final class LockFallbackResolver {

	private LockFallbackResolver() {
	}

	/**
	 * @param locked the locked method
	 * @param owner the bean's class
	 * @param name the fallback's name
	 * @param methodId the locked method as {@code Class#method}, for messages
	 * @throws LockDefinitionException if no fitting method exists, or more than one
	 */
	static LockFallback resolve(Method locked, Class<?> owner, String name, String methodId) {
		List<Method> named = Arrays.stream(ReflectionUtils.getUniqueDeclaredMethods(owner))
			.filter((candidate) -> candidate.getName().equals(name) && !candidate.isBridge())
			// Reflection lists methods in no fixed order; messages should not vary between runs.
			.sorted(Comparator.comparingInt(Method::getParameterCount).thenComparing(Method::toGenericString))
			.toList();
		String fallbackId = owner.getSimpleName() + "#" + name;
		if (named.isEmpty()) {
			throw problem(methodId, "its fallback " + fallbackId + " does not exist; declare "
					+ signature(owner, name, locked, false) + " or " + signature(owner, name, locked, true));
		}
		List<Method> fitting = named.stream().filter((candidate) -> takesArguments(candidate, locked)).toList();
		if (fitting.isEmpty()) {
			throw problem(methodId, "its fallback " + describe(owner, named) + " does not take the parameters of "
					+ signature(owner, locked.getName(), locked, false) + ", optionally followed by one that accepts "
					+ "a LockAcquisitionException; declare " + signature(owner, name, locked, false) + " or "
					+ signature(owner, name, locked, true));
		}
		if (fitting.size() > 1) {
			throw problem(methodId, "its fallback is ambiguous: " + describe(owner, fitting)
					+ " fit; keep one of them");
		}
		Method fallback = fitting.get(0);
		if (fallback.equals(locked)) {
			throw problem(methodId, "its fallback " + fallbackId + " is the locked method itself, which the fallback "
					+ "would call without its lock; name another method");
		}
		if (AnnotatedElementUtils.hasAnnotation(fallback, DistributedLock.class)) {
			throw problem(methodId, "its fallback " + describe(owner, List.of(fallback)) + " carries a lock of its "
					+ "own, which would not apply: a fallback is called on the bean itself, not through its proxy; "
					+ "lock the work it calls instead");
		}
		if (!returnsFittingType(fallback, locked, owner)) {
			throw problem(methodId, "its fallback " + describe(owner, List.of(fallback)) + " returns "
					+ returnType(fallback, owner) + ", which " + owner.getSimpleName() + "#" + locked.getName()
					+ " cannot return in place of its " + returnType(locked, owner)
					+ "; the fallback must return what the method returns");
		}
		ReflectionUtils.makeAccessible(fallback);
		return new LockFallback(fallback, fallback.getParameterCount() > locked.getParameterCount());
	}

	/** The locked method's parameter types, optionally followed by one that accepts the failure. */
	private static boolean takesArguments(Method candidate, Method locked) {
		Class<?>[] expected = locked.getParameterTypes();
		Class<?>[] actual = candidate.getParameterTypes();
		if (actual.length == expected.length) {
			return Arrays.equals(actual, expected);
		}
		return actual.length == expected.length + 1
				&& Arrays.equals(actual, 0, expected.length, expected, 0, expected.length)
				&& actual[expected.length].isAssignableFrom(LockAcquisitionException.class);
	}

	/**
	 * Whether every value the fallback returns is one the locked method may: {@code void} for {@code void}, else an
	 * assignable type, generics included where both are resolved ({@code CompletionStage<String>} does not take a
	 * {@code CompletableFuture<Integer>}).
	 */
	private static boolean returnsFittingType(Method fallback, Method locked, Class<?> owner) {
		Class<?> expected = locked.getReturnType();
		Class<?> actual = fallback.getReturnType();
		if (expected == void.class || actual == void.class) {
			return expected == actual;
		}
		if (!ClassUtils.isAssignable(expected, actual)) {
			return false;
		}
		if (isTypeVariable(locked.getGenericReturnType()) || isTypeVariable(fallback.getGenericReturnType())) {
			// A method's own type variable (<T> T run(Callable<T>)) is bound per call, not here.
			return true;
		}
		ResolvableType expectedType = ResolvableType.forMethodReturnType(locked, owner);
		ResolvableType actualType = ResolvableType.forMethodReturnType(fallback, owner);
		if (expectedType.hasUnresolvableGenerics() || actualType.hasUnresolvableGenerics()) {
			return true;
		}
		return expectedType.isAssignableFrom(actualType);
	}

	private static boolean isTypeVariable(Type type) {
		return type instanceof TypeVariable<?>;
	}

	private static LockDefinitionException problem(String methodId, String problem) {
		return new LockDefinitionException(methodId, problem, null);
	}

	private static String returnType(Method method, Class<?> owner) {
		return ResolvableType.forMethodReturnType(method, owner).toString();
	}

	private static String describe(Class<?> owner, List<Method> methods) {
		return methods.stream()
			.map((method) -> owner.getSimpleName() + "#" + method.getName() + "("
					+ Arrays.stream(method.getParameterTypes()).map(Class::getSimpleName).collect(Collectors.joining(", "))
					+ ")")
			.collect(Collectors.joining(", "));
	}

	private static String signature(Class<?> owner, String name, Method locked, boolean withFailure) {
		String parameters = Arrays.stream(locked.getParameterTypes())
			.map(Class::getSimpleName)
			.collect(Collectors.joining(", "));
		if (withFailure) {
			parameters = parameters.isEmpty() ? "LockAcquisitionException"
					: parameters + ", LockAcquisitionException";
		}
		return owner.getSimpleName() + "#" + name + "(" + parameters + ")";
	}

}
