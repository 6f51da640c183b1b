package io.github.distlock.etcd;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One blocking engine call (an acquisition, a release, a renewal) run on a thread of its own, so that a test can
 * have several in flight at once and then tell how long after a moment of its choosing each one returned.
 *
 * @param <T> what the call returns
 */
final class InFlightCall<T> {

	private final String name;

	private final CountDownLatch entered = new CountDownLatch(1);

	private final CompletableFuture<T> outcome = new CompletableFuture<>();

	private volatile long finishedAtNanos;

	private InFlightCall(String name) {
		this.name = name;
	}

	/** Starts the call on a new thread; returns once that thread is about to make it. */
	static <T> InFlightCall<T> start(String name, Callable<T> call) throws InterruptedException {
		InFlightCall<T> inFlight = new InFlightCall<>(name);
		Thread thread = new Thread(() -> inFlight.run(call), "in-flight-" + name);
		thread.setDaemon(true);
		thread.start();
		if (!inFlight.entered.await(10, TimeUnit.SECONDS)) {
			throw new IllegalStateException("The thread of the " + name + " did not start");
		}
		return inFlight;
	}

	private void run(Callable<T> call) {
		this.entered.countDown();
		try {
			T result = call.call();
			this.finishedAtNanos = System.nanoTime();
			this.outcome.complete(result);
		}
		catch (Throwable ex) {
			this.finishedAtNanos = System.nanoTime();
			this.outcome.completeExceptionally(ex);
		}
	}

	String name() {
		return this.name;
	}

	boolean isDone() {
		return this.outcome.isDone();
	}

	/** What the call returned, waiting at most {@code wait}; its exception, if it threw. */
	T result(Duration wait) throws InterruptedException, ExecutionException, TimeoutException {
		return this.outcome.get(wait.toNanos(), TimeUnit.NANOSECONDS);
	}

	/**
	 * Waits at most {@code wait} for the call, and says how long after {@code fromNanos} it returned and what it
	 * returned or threw, for the test's output.
	 */
	String report(long fromNanos, Duration wait) {
		try {
			T result = result(wait);
			return this.name + " " + tookSince(fromNanos).toMillis() + " ms (" + result + ")";
		}
		catch (TimeoutException ex) {
			return this.name + " still running after " + wait.toMillis() + " ms";
		}
		catch (ExecutionException ex) {
			return this.name + " threw after " + tookSince(fromNanos).toMillis() + " ms (" + ex.getCause() + ")";
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return this.name + " (interrupted)";
		}
	}

	/** How long after {@code fromNanos} the call returned (or threw); call after {@link #result}. */
	Duration tookSince(long fromNanos) {
		return Duration.ofNanos(this.finishedAtNanos - fromNanos);
	}

}
