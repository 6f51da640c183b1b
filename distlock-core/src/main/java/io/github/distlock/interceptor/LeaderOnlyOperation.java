package io.github.distlock.interceptor;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;

import io.github.distlock.OnLost;
import io.github.distlock.engine.Leases;
import io.github.distlock.engine.LockRequest;
import io.github.distlock.leader.LeaderElection;

/**
 * A {@code @LeaderOnly} method as parsed once: its election, what a lost leadership does to it, how it runs for its
 * return type, and what a skipped call returns.
 *
 * @param methodId {@code Class#method}, for messages
 * @param election the election's name
 * @param onLost what a leadership lost while the method runs does to it
 * @param call how the method runs under the term's lock for its return type
 * @param request the request for a share of the term, made once when the declaration is read
 */
public record LeaderOnlyOperation(String methodId, Method method, String election, OnLost onLost, LockedCall call,
		LockRequest request) {

	/**
	 * The request for a share of the election's term: never sent to a store, so the lease is only there to be valid,
	 * and there is no waiting (the call runs as the leader now, or is skipped).
	 */
	static LockRequest shareRequest(String election) {
		return new LockRequest(LeaderElection.LOCK_NAME, election, Leases.SHORTEST, Duration.ZERO, false, null);
	}

	/** What the caller receives where this instance does not lead: nothing, in the method's return type. */
	@Nullable Object skipped() {
		if (this.call instanceof ReactiveLockedCall reactive) {
			return reactive.empty();
		}
		Class<?> type = this.method.getReturnType();
		if (type == Optional.class) {
			return Optional.empty();
		}
		if (this.call == CompletionStageLockedCall.INSTANCE) {
			return CompletableFuture.completedFuture(null);
		}
		return null;
	}

}
