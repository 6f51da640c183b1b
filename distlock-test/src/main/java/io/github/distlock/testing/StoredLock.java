package io.github.distlock.testing;

import java.time.Duration;

import io.github.distlock.engine.DisplayedKey;

/**
 * An exclusive lock as the store holds it right now, whichever instance holds it.
 *
 * @param name the lock's namespace
 * @param key the lock's key
 * @param holder the holder id stored with it: unique per acquisition, the same as the {@code holder} that the
 * holding engine's {@code heldLocks()} and the {@code distlocks} endpoint show
 * @param token the fencing token of that acquisition
 * @param timeToLive how long the store keeps the lock without a renewal
 */
public record StoredLock(String name, String key, String holder, long token, Duration timeToLive) {

	/** As messages show it: the key with control characters escaped and a long key cut. */
	@Override
	public String toString() {
		return "StoredLock[name=" + this.name + ", key=" + DisplayedKey.of(this.key) + ", holder=" + this.holder
				+ ", token=" + this.token + ", timeToLive=" + this.timeToLive.toMillis() + "ms]";
	}

}
