package io.github.distlock.benchmarks.shared;

import java.time.Duration;

/**
 * One client (an application instance: its own connections) of a system with read/write locks and permits. Every
 * acquisition waits at most {@link #WAIT} and holds a {@link #LEASE} that the system keeps alive the way it
 * does by default.
 */
interface SharedLockClient extends AutoCloseable {

	/** Redisson's default watchdog timeout, which distlock's lease matches. */
	Duration LEASE = Duration.ofSeconds(30);

	/** The bound on every wait, both systems. */
	Duration WAIT = Duration.ofSeconds(10);

	/** The read side of the read/write lock of {@code key}; null when the wait ran out. */
	Held read(String key) throws InterruptedException;

	/** The write side of the read/write lock of {@code key}; null when the wait ran out. */
	Held write(String key) throws InterruptedException;

	/** Makes {@code key} a set of {@code permits} permits, where the system needs that done once beforehand. */
	void preparePermits(String key, int permits);

	/** One of the {@code permits} permits of {@code key}; null when the wait ran out. */
	Held permit(String key, int permits) throws InterruptedException;

	/** Locks this client was told it lost while holding them. */
	long lostLocks();

	@Override
	void close();

	/** One acquisition, to release. */
	@FunctionalInterface
	interface Held {

		/** @return whether the holder still held it */
		boolean release();

	}

}
