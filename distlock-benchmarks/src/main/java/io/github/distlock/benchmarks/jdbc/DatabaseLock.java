package io.github.distlock.benchmarks.jdbc;

import java.time.Duration;

/**
 * One system's lock on a database, as the benchmark drives it: one instance of an application.
 */
interface DatabaseLock extends AutoCloseable {

	/** Whether a caller can wait for a busy lock (ShedLock cannot: a busy lock is skipped). */
	boolean waits();

	/**
	 * Takes the lock, waiting up to {@code wait}.
	 * @return what releases it, or null when it was not acquired
	 */
	Held lock(String key, Duration wait) throws Exception;

	@Override
	void close();

	/** A held lock. */
	interface Held {

		void unlock();

	}

}
