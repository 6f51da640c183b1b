package io.github.distlock.engine;

import java.time.Duration;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

import io.github.distlock.LockMode;

/**
 * What a caller asks of a {@link LockEngine}: which lock, for how long, and how long to wait for it.
 *
 * @param name the lock's namespace
 * @param key the evaluated key within that namespace
 * @param lease the lock's time to live in the store
 * @param waitTime how long to wait for the lock; zero tries once
 * @param autoRenew whether the engine extends the lease until release
 * @param maxLease when not null, the lock expires no later than this long after acquisition
 * @param mode whether the lock is exclusive or one side of a read/write lock
 * @param permits when positive, the lock is one of this many permits of the name and key (a distributed concurrency
 * limit, with {@link LockMode#EXCLUSIVE} mode); zero for a plain lock
 */
public record LockRequest(String name, String key, Duration lease, Duration waitTime, boolean autoRenew,
		@Nullable Duration maxLease, LockMode mode, int permits) {

	/**
	 * The longest lock key, in characters. Keys are stored in the lock store and shown (cut) in logs; a longer value
	 * is a sign of locking on data rather than on an identity, and is refused.
	 */
	public static final int MAX_KEY_LENGTH = 1024;

	public LockRequest {
		Objects.requireNonNull(name, "name");
		Objects.requireNonNull(key, "key");
		if (key.length() > MAX_KEY_LENGTH || name.length() > MAX_KEY_LENGTH) {
			throw new IllegalArgumentException("A lock name or key may have at most " + MAX_KEY_LENGTH
					+ " characters: name of " + name.length() + ", key of " + key.length() + " (key '"
					+ DisplayedKey.of(key) + "')");
		}
		Leases.requireLease(lease, "lease");
		Objects.requireNonNull(waitTime, "waitTime");
		if (waitTime.isNegative()) {
			throw new IllegalArgumentException("waitTime must not be negative: " + waitTime);
		}
		if (maxLease != null) {
			Leases.requireLease(maxLease, "maxLease");
		}
		Objects.requireNonNull(mode, "mode");
		if (permits < 0 || (permits > 0 && mode != LockMode.EXCLUSIVE)) {
			throw new IllegalArgumentException("permits must be zero, or positive with mode EXCLUSIVE: " + permits
					+ " with mode " + mode);
		}
	}

	/** An exclusive lock. */
	public LockRequest(String name, String key, Duration lease, Duration waitTime, boolean autoRenew,
			@Nullable Duration maxLease) {
		this(name, key, lease, waitTime, autoRenew, maxLease, LockMode.EXCLUSIVE, 0);
	}

	/** Whether this asks for a plain exclusive lock: neither a side of a read/write lock nor a permit. */
	public boolean isExclusive() {
		return this.mode == LockMode.EXCLUSIVE && this.permits == 0;
	}

	/** The lease the store is first given: the lease, cut to {@code maxLease} when that is shorter. */
	public Duration initialLease() {
		return (this.maxLease != null && this.maxLease.compareTo(this.lease) < 0) ? this.maxLease : this.lease;
	}

}
