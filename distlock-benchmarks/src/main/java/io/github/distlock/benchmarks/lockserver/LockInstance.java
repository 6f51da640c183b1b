package io.github.distlock.benchmarks.lockserver;

/**
 * One application instance of a system under test: a client of its own and the system's lock on it. Closing it
 * closes both, the lock first.
 */
public interface LockInstance extends AutoCloseable {

	SystemLock lock();

	/**
	 * Locks lost while held, as far as can be known: those the system reported, plus every event of the client
	 * (such as a suspended session) during which a system that reports nothing may have lost what it held.
	 */
	long lostLocks();

	@Override
	void close();

}
