package io.github.distlock.interceptor;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Arrays;

import org.jspecify.annotations.Nullable;

import io.github.distlock.LockAcquisitionException;

/**
 * The method a locked method falls back to when its lock stays busy, resolved and checked at start-up by
 * {@link LockFallbackResolver}. Called on the bean itself, with the call's arguments and, when it asks for it, the
 * failure.
 */
public final class LockFallback {

	private final Method method;

	private final boolean takesFailure;

	LockFallback(Method method, boolean takesFailure) {
		this.method = method;
		this.takesFailure = takesFailure;
	}

	public Method method() {
		return this.method;
	}

	/**
	 * @return the fallback's result
	 * @throws Throwable what the fallback threw, unwrapped
	 */
	@Nullable Object invoke(@Nullable Object target, @Nullable Object[] args, LockAcquisitionException failure)
			throws Throwable {
		Object[] arguments = args;
		if (this.takesFailure) {
			arguments = Arrays.copyOf(args, args.length + 1);
			arguments[args.length] = failure;
		}
		try {
			return this.method.invoke(target, arguments);
		}
		catch (InvocationTargetException ex) {
			throw ex.getTargetException();
		}
	}

	@Override
	public String toString() {
		return this.method.toGenericString();
	}

}
