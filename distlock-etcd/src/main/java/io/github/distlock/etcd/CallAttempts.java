package io.github.distlock.etcd;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntFunction;

/**
 * Runs an etcd call that is safe to repeat as a series of attempts, each with a deadline of its own, within one
 * bound for the whole call.
 * <p>
 * Why: a write (and a linearizable read) sent to a member goes to the leader. When the leader dies, the member does
 * not fail the call: it waits for its own request timeout (five seconds and more), longer than the engine's call
 * timeout, while the survivors elect a new leader in about an election timeout. jetcd repeats a call that fails
 * (unreachable), not one that hangs. So an attempt gets one election timeout of the cluster, the time a new leader
 * takes; one that has no answer by then is given up and the call sent again, reaching the new leader once there is
 * one. A quick failure that waiting may cure (no leader, unreachable) is tried again after a fifth of that. A
 * refusal, a lease etcd no longer has and a closed client end the call at once.
 * <p>
 * An attempt given up is not taken back: etcd may still apply it, even after a later attempt was answered. So only
 * calls whose every attempt may take effect, in any order, are run here, each saying why (see its callers). Only
 * the answer of the attempt that was sent last counts.
 */
final class CallAttempts {

	/** The shortest deadline of one attempt: below it, calls that are merely slow would be sent again and again. */
	static final Duration MIN_ATTEMPT = Duration.ofMillis(100);

	private final long attemptNanos;

	private final long pauseNanos;

	/**
	 * @param electionTimeout the cluster's election timeout ({@code --election-timeout}): the deadline of one
	 * attempt, at least {@link #MIN_ATTEMPT}
	 */
	CallAttempts(Duration electionTimeout) {
		this.attemptNanos = Math.max(MIN_ATTEMPT.toNanos(), electionTimeout.toNanos());
		this.pauseNanos = this.attemptNanos / 5;
	}

	/** The deadline of one attempt. */
	Duration attemptTimeout() {
		return Duration.ofNanos(this.attemptNanos);
	}

	/**
	 * Sends attempts until one is answered, one fails in a way that waiting will not cure, or the bound runs out.
	 * @param attempt sends attempt number {@code n} (0 for the first) and returns its answer
	 * @param boundNanos how long the whole call may take; its last attempt's deadline is cut to what is left of it
	 * @param maxAttempts how many attempts at most
	 * @return the answer of the last attempt; it fails with the last attempt's failure ({@link TimeoutException}
	 * when it had no answer in time), and never later than the bound
	 */
	<T> CompletableFuture<T> call(IntFunction<CompletableFuture<T>> attempt, long boundNanos, int maxAttempts) {
		CompletableFuture<T> answer = new CompletableFuture<>();
		send(attempt, 0, System.nanoTime() + boundNanos, maxAttempts, answer);
		return answer;
	}

	/** As {@link #call(IntFunction, long, int)}, with as many attempts as the bound leaves room for. */
	<T> CompletableFuture<T> call(IntFunction<CompletableFuture<T>> attempt, long boundNanos) {
		return call(attempt, boundNanos, Integer.MAX_VALUE);
	}

	private <T> void send(IntFunction<CompletableFuture<T>> attempt, int n, long deadline, int maxAttempts,
			CompletableFuture<T> answer) {
		long left = deadline - System.nanoTime();
		if (answer.isDone()) {
			return;
		}
		CompletableFuture<T> sent;
		try {
			sent = attempt.apply(n);
		}
		catch (RuntimeException ex) {
			answer.completeExceptionally(ex);
			return;
		}
		sent.orTimeout(Math.max(1, Math.min(left, this.attemptNanos)), TimeUnit.NANOSECONDS)
			.whenComplete((value, failure) -> {
				if (failure == null) {
					answer.complete(value);
					return;
				}
				Throwable cause = unwrap(failure);
				long remaining = deadline - System.nanoTime();
				if (!mayRepeat(cause) || n + 1 >= maxAttempts || remaining <= 0) {
					answer.completeExceptionally(cause);
				}
				else if (cause instanceof TimeoutException) {
					// The attempt's deadline passed: the leader it went to may be dead; the next one may be there.
					send(attempt, n + 1, deadline, maxAttempts, answer);
				}
				else if (remaining > this.pauseNanos) {
					CompletableFuture.delayedExecutor(this.pauseNanos, TimeUnit.NANOSECONDS)
						.execute(() -> send(attempt, n + 1, deadline, maxAttempts, answer));
				}
				else {
					answer.completeExceptionally(cause);
				}
			});
	}

	/** Whether waiting may cure the failure: not a refusal, a lease etcd no longer has, or a closed client. */
	private static boolean mayRepeat(Throwable failure) {
		EtcdFailure found = EtcdFailure.of(failure);
		return !found.isRefusal() && found.kind() != EtcdFailure.Kind.LEASE_GONE
				&& found.kind() != EtcdFailure.Kind.CLOSED;
	}

	static Throwable unwrap(Throwable failure) {
		Throwable cause = failure;
		while ((cause instanceof ExecutionException || cause instanceof CompletionException)
				&& cause.getCause() != null) {
			cause = cause.getCause();
		}
		return cause;
	}

}
