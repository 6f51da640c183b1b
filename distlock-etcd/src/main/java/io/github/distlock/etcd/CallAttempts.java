package io.github.distlock.etcd;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntFunction;

import org.jspecify.annotations.Nullable;

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
		return new Call<>(attempt, boundNanos, maxAttempts, true).send(0);
	}

	/**
	 * As {@link #call(IntFunction, long)}, but a failure is not tried again: only an attempt left without an answer
	 * is, and the call fails with the first failure of any attempt, given up or not. For a caller that has its own
	 * pace for trying again after a failure.
	 */
	<T> CompletableFuture<T> callAgainWhenUnanswered(IntFunction<CompletableFuture<T>> attempt, long boundNanos) {
		return new Call<>(attempt, boundNanos, Integer.MAX_VALUE, false).send(0);
	}

	/** As {@link #call(IntFunction, long, int)}, with as many attempts as the bound leaves room for. */
	<T> CompletableFuture<T> call(IntFunction<CompletableFuture<T>> attempt, long boundNanos) {
		return call(attempt, boundNanos, Integer.MAX_VALUE);
	}

	/** One call and its attempts. */
	private final class Call<T> {

		private final IntFunction<CompletableFuture<T>> attempt;

		private final long deadline;

		private final int maxAttempts;

		private final boolean repeatFailures;

		private final CompletableFuture<T> answer = new CompletableFuture<>();

		/**
		 * The last failure an attempt was told, given up or not: it says more than the last attempt's timeout (an
		 * attempt given up may still fail with "unreachable" after a later one was sent).
		 */
		private volatile @Nullable Throwable told;

		Call(IntFunction<CompletableFuture<T>> attempt, long boundNanos, int maxAttempts, boolean repeatFailures) {
			this.attempt = attempt;
			this.deadline = System.nanoTime() + boundNanos;
			this.maxAttempts = maxAttempts;
			this.repeatFailures = repeatFailures;
		}

		CompletableFuture<T> send(int n) {
			if (this.answer.isDone()) {
				return this.answer;
			}
			long left = this.deadline - System.nanoTime();
			CompletableFuture<T> sent;
			try {
				sent = this.attempt.apply(n);
			}
			catch (RuntimeException ex) {
				this.answer.completeExceptionally(ex);
				return this.answer;
			}
			sent.whenComplete((value, failure) -> {
				if (failure != null && !(unwrap(failure) instanceof TimeoutException)) {
					told(unwrap(failure));
				}
			});
			// A copy takes the attempt's deadline, so that the attempt itself still tells its answer when it comes.
			sent.copy().orTimeout(Math.max(1, Math.min(left, CallAttempts.this.attemptNanos)), TimeUnit.NANOSECONDS)
				.whenComplete((value, failure) -> {
					if (failure == null) {
						this.answer.complete(value);
						return;
					}
					Throwable cause = unwrap(failure);
					long remaining = this.deadline - System.nanoTime();
					if (!mayRepeat(cause) || n + 1 >= this.maxAttempts || remaining <= 0) {
						fail(cause);
					}
					else if (cause instanceof TimeoutException) {
						// The attempt's deadline passed: the leader it went to may be dead; the next one may be there.
						send(n + 1);
					}
					else if (this.repeatFailures && remaining > CallAttempts.this.pauseNanos) {
						CompletableFuture.delayedExecutor(CallAttempts.this.pauseNanos, TimeUnit.NANOSECONDS)
							.execute(() -> send(n + 1));
					}
					else {
						fail(cause);
					}
				});
			return this.answer;
		}

		private void told(Throwable failure) {
			this.told = failure;
			if (!this.repeatFailures) {
				this.answer.completeExceptionally(failure);
			}
		}

		/** Fails with the cause, or, when it is only the last attempt's timeout, with what an attempt was told. */
		private void fail(Throwable cause) {
			Throwable told = this.told;
			this.answer.completeExceptionally((cause instanceof TimeoutException && told != null) ? told : cause);
		}

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
