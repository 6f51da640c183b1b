package io.github.distlock.engine;

import io.github.distlock.LockAcquisitionException;

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

}
