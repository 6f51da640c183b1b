package io.github.distlock.benchmarks.systems;

import java.util.List;
import java.util.OptionalLong;

/**
 * One application instance's view of a lock system: its own connections (and engine, registry or context), as a
 * separate JVM would have. Every scenario drives the systems only through this interface.
 */
public interface LockClient extends AutoCloseable {

	/**
	 * Runs {@code body} while holding the lock on {@code key}, waiting for it up to the configured wait time.
	 * @return {@code false} if the wait time passed without the lock
	 */
	boolean runLocked(String key, Runnable body);

	/**
	 * Tries the lock once, without waiting, and runs {@code body} only if it was free.
	 * @return whether the lock was acquired
	 */
	boolean tryRunLocked(String key, Runnable body);

	/**
	 * Acquires every key, runs {@code whileHeld} with all of them held at once (kept alive by the system's renewal),
	 * then releases them.
	 * @return how many of the locks turned out to be lost by the time they were released
	 */
	long holdAll(List<String> keys, Runnable whileHeld);

	/**
	 * Renewal round trips this client has made so far, by its own count, where the library keeps one: Redis sees
	 * script calls, and cannot tell calls sent together from calls sent one after another.
	 */
	default OptionalLong renewalRoundTrips() {
		return OptionalLong.empty();
	}

	@Override
	void close();

}
