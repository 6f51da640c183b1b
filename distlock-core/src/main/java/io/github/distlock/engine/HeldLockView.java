package io.github.distlock.engine;

import java.time.Duration;

import io.github.distlock.LockMode;

/**
 * A snapshot of one lock an engine holds, for operators. Carries the key because it is this instance's own lock;
 * metrics never do.
 *
 * @param name the lock's namespace
 * @param key the lock's key
 * @param mode the side of a read/write lock held, or {@link LockMode#EXCLUSIVE}
 * @param permits how many permits the lock's key has, for a permit; 0 for any other lock
 * @param token the fencing token
 * @param holder the holder id stored in the lock store
 * @param heldFor how long the lock has been held
 * @param leaseRemaining how long the lock is known to stay held without another renewal
 */
public record HeldLockView(String name, String key, LockMode mode, int permits, long token, String holder,
		Duration heldFor, Duration leaseRemaining) {

	/** A snapshot of an exclusive lock. */
	public HeldLockView(String name, String key, long token, String holder, Duration heldFor,
			Duration leaseRemaining) {
		this(name, key, LockMode.EXCLUSIVE, 0, token, holder, heldFor, leaseRemaining);
	}

}
