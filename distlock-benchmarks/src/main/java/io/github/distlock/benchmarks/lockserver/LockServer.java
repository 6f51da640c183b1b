package io.github.distlock.benchmarks.lockserver;

import java.util.function.Function;

/**
 * The server a lock-server benchmark measures on: it opens instances of the systems under test, each on a client of
 * its own, and reads what it has done by its own count.
 * @param <C> the client the systems are built on
 */
public interface LockServer<C> extends AutoCloseable {

	/** One new instance of a system: a connected client of its own, and the system's lock on it. */
	LockInstance open(Function<C, SystemLock> system) throws Exception;

	/** The server's counters now, read without a client whose requests would mix with those counted. */
	ServerCounters counters() throws Exception;

}
