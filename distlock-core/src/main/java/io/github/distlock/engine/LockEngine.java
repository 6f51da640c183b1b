package io.github.distlock.engine;

import java.util.List;

import org.jspecify.annotations.Nullable;

import io.github.distlock.LockAcquisitionException;
import io.github.distlock.LockMode;

/**
 * The backend SPI: acquires locks in a shared store and hands out {@link LockHandle}s that release them. An engine
 * renews handles whose request asked for it until they are released.
 * <p>
 * Engines know nothing about annotations, proxies or Spring Boot; reentrancy is the caller's concern, so every
 * call to {@link #acquire} is a new holder.
 */
public interface LockEngine {

	/**
	 * Acquires the lock, waiting up to the request's wait time.
	 * @throws LockAcquisitionException if the lock was not acquired within the wait time, or the store could not
	 * be reached within the wait time plus one command timeout
	 * @throws InterruptedException if the calling thread was interrupted while waiting
	 */
	LockHandle acquire(LockRequest request) throws InterruptedException;

	/**
	 * Takes every one of these locks in one step, all or none, without waiting: for an engine that can take several
	 * locks in one round trip. A caller that gets null takes them one by one instead, which every engine can do.
	 * @return the handles, in the order of the requests; null when not every lock was free (nothing is then held), or
	 * when the engine takes locks one at a time (the default)
	 */
	default @Nullable List<LockHandle> tryAcquireAll(List<LockRequest> requests) {
		return null;
	}

	/**
	 * Whether this engine has locks of this mode, or permits when {@code permits} is true. The default is an engine of
	 * exclusive locks only, whose {@link #acquire} refuses the others with {@link UnsupportedOperationException}.
	 */
	default boolean supports(LockMode mode, boolean permits) {
		return mode == LockMode.EXCLUSIVE && !permits;
	}

}
