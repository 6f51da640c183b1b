package io.github.distlock.interceptor;

import java.util.Optional;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.springframework.util.ClassUtils;
import org.springframework.util.function.SingletonSupplier;

import io.github.distlock.LockAcquisitionException;
import io.github.distlock.LockFailureHandler;

/**
 * Answers a call whose lock stayed busy: with the method's fallback if it names one, else with the application's
 * {@link LockFailureHandler}, else by throwing the failure.
 * <p>
 * Only a busy lock is recovered from. An unreachable store or an interrupted wait is not "someone else has it" and
 * always reaches the caller, so that neither a fallback nor a handler hides an outage.
 */
final class LockFailureRecovery {

	/**
	 * Asked once, at the end of start-up or on first use: a lookup per call would cost every locked call, and an
	 * absent handler is remembered.
	 */
	private final Supplier<Optional<LockFailureHandler>> handler;

	/**
	 * @param handler supplies the application's handler (null when it has none) when first asked, so that building
	 * the interceptor does not create it
	 */
	LockFailureRecovery(Supplier<@Nullable LockFailureHandler> handler) {
		this.handler = SingletonSupplier.of(() -> Optional.ofNullable(handler.get()));
	}

	/** Looks the handler up now, rather than on the first call. */
	void resolve() {
		this.handler.get();
	}

	/** Whether a busy lock of this operation is recovered from rather than thrown. */
	boolean recovers(LockOperation operation) {
		return operation.contention().fallback() != null || this.handler.get().isPresent();
	}

	/** Whether the failure is a busy lock, as opposed to an outage or an interrupted wait. */
	static boolean isBusy(LockAcquisitionException failure) {
		return failure.getCause() == null;
	}

	/**
	 * @return what the caller receives in place of the method's result
	 * @throws Throwable the failure when nothing recovers from it, or what the fallback or handler threw
	 */
	@Nullable Object recover(LockOperation operation, @Nullable Object target, @Nullable Object[] args,
			LockAcquisitionException failure) throws Throwable {
		LockFallback fallback = operation.contention().fallback();
		if (fallback != null) {
			return fallback.invoke(target, args, failure);
		}
		LockFailureHandler handler = this.handler.get().orElse(null);
		if (handler == null) {
			throw failure;
		}
		Object result = handler.handleNotAcquired(failure, operation.method(), args);
		return checked(result, handler, operation, failure);
	}

	/** The handler's result, if the caller can receive it; a wrong type would fail far from its cause. */
	private static @Nullable Object checked(@Nullable Object result, LockFailureHandler handler,
			LockOperation operation, LockAcquisitionException failure) {
		Class<?> returnType = operation.method().getReturnType();
		if (returnType == void.class) {
			return null;
		}
		if (ClassUtils.isAssignableValue(returnType, result)) {
			return result;
		}
		String returned = (result != null) ? "a " + result.getClass().getName() : "null";
		throw new IllegalStateException("LockFailureHandler " + handler + " returned " + returned + " for "
				+ operation.methodId() + ", which returns " + returnType.getName()
				+ "; return a value of that type or throw", failure);
	}

}
