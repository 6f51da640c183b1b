package io.github.distlock.engine;

import java.time.Duration;

/**
 * A snapshot of one lock an engine holds, for operators. Carries the key because it is this instance's own lock;
 * metrics never do.
 *
 * @param name the lock's namespace
 * @param key the lock's key
 * @param token the fencing token
 * @param holder the holder id stored in the lock store
 * @param heldFor how long the lock has been held
 * @param leaseRemaining how long the lock is known to stay held without another renewal
 */
public record HeldLockView(String name, String key, long token, String holder, Duration heldFor,
		Duration leaseRemaining) {
}
