package io.github.distlock.interceptor;

import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.WildcardType;

import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import org.springframework.core.ResolvableType;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import io.github.distlock.LockAcquisitionException;
import io.github.distlock.OnLost;
import io.github.distlock.engine.LockRequest;
import io.github.distlock.execution.LockExecution;
import io.github.distlock.execution.LockedSubscription;

/**
 * A method that returns a Reactor {@link Mono} or {@link Flux}, whose work is done when the publisher terminates:
 * each subscription acquires the lock ({@link LockedSubscription}), runs the method inside it, and releases it on
 * completion, error or cancellation. The caller receives a publisher of the same type at once; nothing happens until
 * it is subscribed. Only loaded when Reactor is on the class path.
 */
final class ReactiveLockedCall implements LockedCall {

	static final ReactiveLockedCall MONO = new ReactiveLockedCall(true);

	static final ReactiveLockedCall FLUX = new ReactiveLockedCall(false);

	private final boolean mono;

	private ReactiveLockedCall(boolean mono) {
		this.mono = mono;
	}

	/** The call for a method's declared return type, or null when it is neither {@code Mono} nor {@code Flux}. */
	static @Nullable ReactiveLockedCall forReturnType(Class<?> type) {
		if (type == Mono.class) {
			return MONO;
		}
		return (type == Flux.class) ? FLUX : null;
	}

	/**
	 * The call for a Kotlin suspend function, which Spring's proxies run as a {@code Mono} of its result, or a
	 * {@code Flux} when the result is a {@code Flow}: read from the continuation's type, its last parameter
	 * ({@code Continuation<? super Flow<T>>}), so no Kotlin reflection is needed.
	 */
	static ReactiveLockedCall forSuspendingFunction(Method function) {
		Type[] parameters = function.getGenericParameterTypes();
		if (parameters.length > 0 && parameters[parameters.length - 1] instanceof ParameterizedType continuation
				&& continuation.getActualTypeArguments().length == 1) {
			Type result = continuation.getActualTypeArguments()[0];
			if (result instanceof WildcardType wildcard && wildcard.getLowerBounds().length == 1) {
				result = wildcard.getLowerBounds()[0];
			}
			Class<?> resultClass = ResolvableType.forType(result).resolve(Object.class);
			if (resultClass.getName().equals("kotlinx.coroutines.flow.Flow")) {
				return FLUX;
			}
		}
		return MONO;
	}

	/** An empty publisher of this call's kind: what a skipped call returns. */
	Object empty() {
		return this.mono ? Mono.empty() : Flux.empty();
	}

	/** Recovers from a busy lock with what the caller receives instead: the fallback's publisher, say. */
	@FunctionalInterface
	interface Recovery {

		@Nullable Object recover(LockAcquisitionException failure) throws Throwable;

	}

	@Override
	public Object call(LockExecution execution, LockRequest request, OnLost onLost,
			LockAspectSupport.Invocation method) {
		return call(execution, request, onLost, null, method, null);
	}

	/**
	 * @param nonReentrantMethod the method that refuses to re-enter its lock (for the refusal's message), or null
	 * when it re-enters
	 * @param recovery what answers a busy lock, or null to fail the subscription with it
	 */
	Object call(LockExecution execution, LockRequest request, OnLost onLost, @Nullable String nonReentrantMethod,
			LockAspectSupport.Invocation method, @Nullable Recovery recovery) {
		LockedSubscription subscription = new LockedSubscription(execution, request, onLost, nonReentrantMethod,
				method.repeatable()::proceed, (recovery != null) ? ReactiveLockedCall::markBusy : (failure) -> failure);
		if (this.mono) {
			Mono<Object> locked = Mono.deferContextual(subscription::mono);
			return (recovery != null) ? locked.onErrorResume(BusyLock.class, (busy) -> Mono.from(recover(recovery, busy)))
					: locked;
		}
		Flux<Object> locked = Flux.deferContextual(subscription::flux);
		return (recovery != null) ? locked.onErrorResume(BusyLock.class, (busy) -> Flux.from(recover(recovery, busy)))
				: locked;
	}

	/** A busy lock, marked for the recovery; any other failure to acquire reaches the subscriber as it is. */
	private static Throwable markBusy(LockAcquisitionException failure) {
		return LockFailureRecovery.isBusy(failure) ? new BusyLock(failure) : failure;
	}

	@SuppressWarnings("unchecked")
	private static Publisher<Object> recover(Recovery recovery, BusyLock busy) {
		try {
			Object result = recovery.recover(busy.failure);
			return (result != null) ? (Publisher<Object>) result : Mono.empty();
		}
		catch (Throwable ex) {
			return Mono.error(ex);
		}
	}

	/**
	 * A busy lock on the way to the recovery, wrapped so that a busy lock the method's own work met is not taken for
	 * its own.
	 */
	static final class BusyLock extends RuntimeException {

		final transient LockAcquisitionException failure;

		BusyLock(LockAcquisitionException failure) {
			super(failure.getMessage(), failure, false, false);
			this.failure = failure;
		}

	}

}
