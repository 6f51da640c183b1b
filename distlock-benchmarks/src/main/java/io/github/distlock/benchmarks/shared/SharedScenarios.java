package io.github.distlock.benchmarks.shared;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

import io.github.distlock.benchmarks.measure.TimedLoop;
import io.github.distlock.benchmarks.measure.Workers;
import io.github.distlock.benchmarks.redis.CommandMonitor;
import io.github.distlock.benchmarks.redis.CommandTrace;

/**
 * The measurements of {@link SharedLockBenchmark}, each on clients of one system: lock+unlock pairs on one thread,
 * their commands, the read-heavy mix on one key and many threads contending for a few permits.
 */
final class SharedScenarios {

	/** Pairs traced with MONITOR for the command counts. */
	static final int TRACED_PAIRS = 100;

	/** Share of reads in the read-heavy mix. */
	static final double READ_SHARE = 0.9;

	private SharedScenarios() {
	}

	/** One acquisition of one kind, on one key. */
	@FunctionalInterface
	interface Acquire {

		SharedLockClient.Held acquire() throws InterruptedException;

	}

	/** Acquires and releases at once; an uncontended lock that cannot be had is a failure of the run. */
	static void pair(Acquire acquire) {
		try {
			SharedLockClient.Held held = acquire.acquire();
			if (held == null) {
				throw new IllegalStateException("An uncontended lock could not be acquired within the wait");
			}
			held.release();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/** Pairs for a while, untimed: the JIT and the connection pool settle. */
	static void warm(Acquire acquire, Duration time) {
		long until = System.nanoTime() + time.toNanos();
		while (System.nanoTime() - until < 0) {
			pair(acquire);
		}
	}

	/** The commands {@link #TRACED_PAIRS} pairs make Redis run. */
	static CommandTrace trace(CommandMonitor monitor, Acquire acquire) {
		return monitor.record(() -> {
			for (int i = 0; i < TRACED_PAIRS; i++) {
				pair(acquire);
			}
		});
	}

	/** Lock+unlock pairs per second on one thread. */
	static double pairsPerSecond(Acquire acquire, Duration window) {
		return TimedLoop.run(window, Long.MAX_VALUE, () -> acquire, SharedScenarios::pair).perSecond();
	}

	/**
	 * What one run of many threads on one key showed.
	 *
	 * Every permit holder counts as a writer.
	 *
	 * @param acquisitionsPerSecond acquisitions completed within the measured window, per second
	 * @param writers write acquisitions completed within the window
	 * @param maxWriterWaitNanos longest wait of a writer that got the lock or gave up after the warm-up, the moments
	 * after the window included: a writer still waiting when the window closes is counted
	 * @param maxReaderWaitNanos the same for readers
	 * @param violations acquisitions that saw a writer beside anyone else, or more holders than permits
	 * @param timeouts waits that ran out
	 * @param lostAtRelease releases that found the lock no longer held
	 */
	record Contention(double acquisitionsPerSecond, long writers, long maxWriterWaitNanos, long maxReaderWaitNanos,
			long violations, long timeouts, long lostAtRelease) {

	}

	/**
	 * Every client's threads on the read/write lock of one key, each operation a read with probability
	 * {@link #READ_SHARE}, else a write.
	 */
	static Contention readHeavyMix(List<SharedLockClient> clients, int threadsPerClient, String key, Duration window) {
		return contend(clients, threadsPerClient, window, (client, occupancy, random) -> {
			boolean read = random.nextDouble() < READ_SHARE;
			SharedLockClient.Held held = read ? client.read(key) : client.write(key);
			return new Attempt(held, !read, () -> {
				if (read) {
					occupancy.read();
				}
				else {
					occupancy.write();
				}
			});
		});
	}

	/** Every client's threads on one set of {@code permits} permits. */
	static Contention contendedPermits(List<SharedLockClient> clients, int threadsPerClient, String key, int permits,
			Duration window) {
		return contend(clients, threadsPerClient, window, (client, occupancy, random) -> new Attempt(
				client.permit(key, permits), true, () -> occupancy.permit(permits)));
	}

	/** One acquisition attempt: what it got, whether it counts as a writer, and what to run inside. */
	private record Attempt(SharedLockClient.Held held, boolean writer, Runnable inside) {

	}

	@FunctionalInterface
	private interface Operation {

		Attempt attempt(SharedLockClient client, Occupancy occupancy, ThreadLocalRandom random)
				throws InterruptedException;

	}

	/**
	 * Runs the threads for a third of the window to warm up, then the window; each thread stops at its first
	 * operation after the window.
	 */
	private static Contention contend(List<SharedLockClient> clients, int threadsPerClient, Duration window,
			Operation operation) {
		Occupancy occupancy = new Occupancy();
		AtomicLong acquisitions = new AtomicLong();
		AtomicLong writers = new AtomicLong();
		AtomicLong maxWriterWait = new AtomicLong();
		AtomicLong maxReaderWait = new AtomicLong();
		AtomicLong timeouts = new AtomicLong();
		AtomicLong lost = new AtomicLong();
		long warmup = window.toNanos() / 3;
		Duration limit = window.plus(SharedLockClient.WAIT.multipliedBy(2)).plusSeconds(30);
		Workers.run("shared", clients.size() * threadsPerClient, limit, (index, start) -> {
			SharedLockClient client = clients.get(index % clients.size());
			long measureFrom = start + warmup;
			long stopAt = measureFrom + window.toNanos();
			ThreadLocalRandom random = ThreadLocalRandom.current();
			while (System.nanoTime() - stopAt < 0) {
				long before = System.nanoTime();
				Attempt attempt = operation.attempt(client, occupancy, random);
				long after = System.nanoTime();
				if (after - measureFrom >= 0) {
					(attempt.writer() ? maxWriterWait : maxReaderWait).accumulateAndGet(after - before, Math::max);
				}
				if (attempt.held() == null) {
					timeouts.incrementAndGet();
					continue;
				}
				try {
					attempt.inside().run();
				}
				finally {
					if (!attempt.held().release()) {
						lost.incrementAndGet();
					}
				}
				if (after - measureFrom >= 0 && after - stopAt < 0) {
					acquisitions.incrementAndGet();
					if (attempt.writer()) {
						writers.incrementAndGet();
					}
				}
			}
		});
		return new Contention(acquisitions.get() / (window.toNanos() / 1e9), writers.get(), maxWriterWait.get(),
				maxReaderWait.get(), occupancy.violations(), timeouts.get(), lost.get());
	}

}
