package io.github.distlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;

import org.jspecify.annotations.Nullable;

/**
 * The masters of a {@link RedLockEngine}, one {@link RedisLockEngine} each, and how one question is put to all of
 * them at once: every call runs on a thread of its own, so one slow master costs its own timeout and not the others'.
 */
final class RedLockMasters implements AutoCloseable {

	private final List<RedisLockEngine> engines;

	private final ExecutorService executor;

	private final Duration nodeTimeout;

	RedLockMasters(List<RedisLockEngine> engines, Duration nodeTimeout) {
		this.engines = List.copyOf(engines);
		this.nodeTimeout = nodeTimeout;
		AtomicInteger threads = new AtomicInteger();
		this.executor = Executors.newCachedThreadPool((runnable) -> {
			Thread thread = new Thread(runnable, "distlock-redlock-" + threads.incrementAndGet());
			thread.setDaemon(true);
			return thread;
		});
	}

	int size() {
		return this.engines.size();
	}

	/** More than half of the masters. */
	int majority() {
		return this.engines.size() / 2 + 1;
	}

	RedisLockEngine get(int index) {
		return this.engines.get(index);
	}

	List<RedisLockEngine> all() {
		return this.engines;
	}

	/** The longest one master's answer is waited for. */
	Duration nodeTimeout() {
		return this.nodeTimeout;
	}

	/**
	 * Starts {@code call} for each index below {@code count}, all at once.
	 * @return each call's answer, in index order; a checked exception of the call fails its answer
	 */
	<T> List<CompletableFuture<T>> start(int count, Call<T> call) {
		List<CompletableFuture<T>> answers = new ArrayList<>(count);
		for (int i = 0; i < count; i++) {
			int index = i;
			answers.add(CompletableFuture.supplyAsync(() -> {
				try {
					return call.run(index);
				}
				catch (Exception ex) {
					throw new CompletionException(ex);
				}
			}, this.executor));
		}
		return answers;
	}

	/**
	 * Puts {@code call} to each index below {@code count} at once, and waits for every answer. Each call is bounded
	 * by its master's command timeout, so this wait is too.
	 */
	<T> List<Answer<T>> askAll(int count, IntFunction<T> call) {
		List<CompletableFuture<T>> started = start(count, call::apply);
		List<Answer<T>> answers = new ArrayList<>(count);
		boolean interrupted = false;
		for (CompletableFuture<T> answer : started) {
			while (true) {
				try {
					answers.add(new Answer<>(answer.get(), null));
					break;
				}
				catch (InterruptedException ex) {
					// The answers are what the caller acts on (a release, a check): wait for them, and pass the
					// interrupt on afterwards.
					interrupted = true;
				}
				catch (java.util.concurrent.ExecutionException ex) {
					answers.add(new Answer<>(null, ex.getCause()));
					break;
				}
			}
		}
		if (interrupted) {
			Thread.currentThread().interrupt();
		}
		return answers;
	}

	/** Runs an action on the masters' threads, without waiting for it. */
	void runLater(Runnable action) {
		this.executor.execute(action);
	}

	@Override
	public void close() {
		this.engines.forEach(RedisLockEngine::close);
		this.executor.shutdownNow();
	}

	/** A call to the master at an index. */
	@FunctionalInterface
	interface Call<T> {

		T run(int index) throws Exception;

	}

	/** One master's answer: its value, or how the call failed. */
	record Answer<T>(@Nullable T value, @Nullable Throwable failure) {

		boolean is(T expected) {
			return this.failure == null && expected.equals(this.value);
		}

	}

}
