package io.github.distlock.benchmarks.zookeeper;

import java.time.Duration;

/**
 * One system's lock on ZooKeeper, as the benchmark drives it: one instance of an application, on a client (and so a
 * session) of its own.
 */
interface ZooKeeperLock extends AutoCloseable {

	/**
	 * Takes the lock, waiting up to {@code wait}.
	 * @return what releases it, or null when it was not acquired in time
	 */
	Held lock(String key, Duration wait) throws Exception;

	/**
	 * How many held locks this instance was told it lost. Only distlock tells; the others cannot, and what would
	 * make them lose a lock (a suspended or lost session) is counted for every system by {@link ZooKeeperUnderTest}.
	 */
	default long lostLocks() {
		return 0;
	}

	@Override
	void close();

	/** A held lock. */
	interface Held {

		void unlock() throws Exception;

	}

}
