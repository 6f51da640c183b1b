package io.github.distlock.benchmarks.measure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs a fixed number of load threads that start together and must all finish within a time limit, so that no load
 * loop can outlive its scenario or hang the run.
 */
public final class Workers {

	private Workers() {
	}

	/**
	 * Runs {@code task} on {@code count} new threads, released at the same moment.
	 * @param limit how long the threads may take in all; past it they are interrupted and the run fails
	 * @return the nanoTime at which the threads were released
	 */
	public static long run(String name, int count, Duration limit, Task task) {
		CountDownLatch ready = new CountDownLatch(count);
		CountDownLatch go = new CountDownLatch(1);
		long[] start = new long[1];
		AtomicReference<Throwable> failure = new AtomicReference<>();
		List<Thread> threads = new ArrayList<>(count);
		for (int i = 0; i < count; i++) {
			int index = i;
			Thread thread = new Thread(() -> {
				ready.countDown();
				try {
					go.await();
					task.run(index, start[0]);
				}
				catch (Throwable ex) {
					failure.compareAndSet(null, ex);
				}
			}, name + "-" + i);
			thread.setDaemon(true);
			threads.add(thread);
			thread.start();
		}
		long deadline = System.nanoTime() + limit.toNanos();
		try {
			ready.await(limit.toMillis(), TimeUnit.MILLISECONDS);
			// Written before the latch opens, so every thread reads it after go.await().
			start[0] = System.nanoTime();
			go.countDown();
			for (Thread thread : threads) {
				thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
			}
			List<Thread> hung = threads.stream().filter(Thread::isAlive).toList();
			if (!hung.isEmpty()) {
				hung.forEach(Thread::interrupt);
				throw new IllegalStateException(hung.size() + " " + name + " threads still running after " + limit);
			}
			if (failure.get() != null) {
				throw new IllegalStateException(name + " thread failed: " + failure.get(), failure.get());
			}
			return start[0];
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/** The work of one load thread. */
	@FunctionalInterface
	public interface Task {

		/**
		 * @param index the thread's number, from 0
		 * @param startNanos the nanoTime at which all threads were released
		 */
		void run(int index, long startNanos) throws Exception;

	}

}
