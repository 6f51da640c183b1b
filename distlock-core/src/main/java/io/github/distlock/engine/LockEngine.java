package io.github.distlock.engine;

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
	 * Whether this engine has locks of this mode, or permits when {@code permits} is true. The default is an engine of
	 * exclusive locks only, whose {@link #acquire} refuses the others with {@link UnsupportedOperationException}.
	 */
	default boolean supports(LockMode mode, boolean permits) {
		return mode == LockMode.EXCLUSIVE && !permits;
	}

}
