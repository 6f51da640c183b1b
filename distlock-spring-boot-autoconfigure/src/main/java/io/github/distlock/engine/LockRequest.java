package io.github.distlock.engine;

import java.time.Duration;
import java.util.Objects;

/**
 * What a caller asks of a {@link LockEngine}: which lock, for how long, and how long to wait for it.
 *
 * @param name the lock's namespace
 * @param key the evaluated key within that namespace
 * @param lease the lock's time to live in the store
 * @param waitTime how long to wait for the lock; zero tries once
 * @param autoRenew whether the engine extends the lease until release
 * @param maxLease when not null, the lock expires no later than this long after acquisition
 */
public record LockRequest(String name, String key, Duration lease, Duration waitTime, boolean autoRenew,
		Duration maxLease) {

	public LockRequest {
		Objects.requireNonNull(name, "name");
		Objects.requireNonNull(key, "key");
		requirePositive(lease, "lease");
		Objects.requireNonNull(waitTime, "waitTime");
		if (waitTime.isNegative()) {
			throw new IllegalArgumentException("waitTime must not be negative: " + waitTime);
		}
		if (maxLease != null) {
			requirePositive(maxLease, "maxLease");
		}
	}

	private static void requirePositive(Duration duration, String what) {
		Objects.requireNonNull(duration, what);
		if (duration.isNegative() || duration.isZero()) {
			throw new IllegalArgumentException(what + " must be positive: " + duration);
		}
	}

	/** The lease the store is first given: the lease, cut to {@code maxLease} when that is shorter. */
	public Duration initialLease() {
		return (this.maxLease != null && this.maxLease.compareTo(this.lease) < 0) ? this.maxLease : this.lease;
	}

}
