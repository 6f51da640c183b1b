package io.github.distlock.benchmarks.lockserver;

import java.time.Duration;

/**
 * One system's lock, as the lock-server benchmarks drive it: one instance of an application, on a client of its own
 * (and so, on ZooKeeper a session, on etcd a connection and leases of its own).
 */
public interface SystemLock extends AutoCloseable {

	/**
	 * Takes the lock, waiting up to {@code wait}.
	 * @return what releases it, or null when it was not acquired in time
	 */
	Held lock(String key, Duration wait) throws Exception;

	/**
	 * How many held locks this instance was told it lost. distlock tells; a system that cannot is watched by its
	 * {@link LockInstance} for what would make it lose a lock (a suspended session, a lease that ended).
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
