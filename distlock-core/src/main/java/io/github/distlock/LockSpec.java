package io.github.distlock;

import java.time.Duration;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

import io.github.distlock.engine.Leases;

/**
 * Which lock a {@link DistributedLockTemplate} call takes, and how: the programmatic counterpart of the attributes
 * of {@link DistributedLock}. Immutable; every {@code with...} returns a new spec. What is not set takes the
 * application's {@code distlock.*} default, as an empty annotation attribute does.
 *
 * <pre>{@code
 * LockSpec spec = LockSpec.of("orders", order.id()).withLease(Duration.ofSeconds(10)).withWaitTime(Duration.ZERO);
 * }</pre>
 */
public final class LockSpec {

	private final String name;

	private final String key;

	private final @Nullable Duration lease;

	private final @Nullable Duration waitTime;

	private final boolean autoRenew;

	private final @Nullable Duration maxLease;

	private final OnLost onLost;

	private final LockMode mode;

	private final int permits;

	private LockSpec(String name, String key, @Nullable Duration lease, @Nullable Duration waitTime,
			boolean autoRenew, @Nullable Duration maxLease, OnLost onLost, LockMode mode, int permits) {
		this.name = name;
		this.key = key;
		this.lease = lease;
		this.waitTime = waitTime;
		this.autoRenew = autoRenew;
		this.maxLease = maxLease;
		this.onLost = onLost;
		this.mode = mode;
		this.permits = permits;
	}

	/**
	 * A lock with every setting at its default. Two calls exclude each other exactly when name and key are equal,
	 * whether they come from the template or from an annotated method.
	 * @param name the lock's namespace
	 * @param key the key within that namespace
	 * @throws IllegalArgumentException if either is null or blank
	 */
	public static LockSpec of(String name, String key) {
		return new LockSpec(requireText(name, "name"), requireText(key, "key"), null, null, true, null,
				OnLost.DEFAULT, LockMode.EXCLUSIVE, 0);
	}

	/** The lock's time to live in the store; at least 1 ms, since the store keeps whole milliseconds. */
	public LockSpec withLease(Duration lease) {
		return new LockSpec(this.name, this.key, atLeast(lease, Leases.SHORTEST, "lease"), this.waitTime,
				this.autoRenew, this.maxLease, this.onLost, this.mode, this.permits);
	}

	/** How long to wait for the lock; zero tries once. */
	public LockSpec withWaitTime(Duration waitTime) {
		return new LockSpec(this.name, this.key, this.lease, atLeast(waitTime, Duration.ZERO, "waitTime"),
				this.autoRenew, this.maxLease, this.onLost, this.mode, this.permits);
	}

	/** Whether the watchdog extends the lease while the work runs (default {@code true}). */
	public LockSpec withAutoRenew(boolean autoRenew) {
		return new LockSpec(this.name, this.key, this.lease, this.waitTime, autoRenew, this.maxLease, this.onLost, this.mode, this.permits);
	}

	/** The renewal ceiling: the lock expires no later than this after it was acquired. */
	public LockSpec withMaxLease(Duration maxLease) {
		return new LockSpec(this.name, this.key, this.lease, this.waitTime, this.autoRenew,
				atLeast(maxLease, Leases.SHORTEST, "maxLease"), this.onLost, this.mode, this.permits);
	}

	/** What a lock lost while the work runs does to the call; {@link OnLost#DEFAULT} for {@code distlock.on-lost}. */
	public LockSpec withOnLost(OnLost onLost) {
		return new LockSpec(this.name, this.key, this.lease, this.waitTime, this.autoRenew, this.maxLease,
				Objects.requireNonNull(onLost, "onLost"), this.mode, this.permits);
	}

	/**
	 * A side of the read/write lock of this name and key ({@link LockMode#READ} or {@link LockMode#WRITE}), or
	 * {@link LockMode#EXCLUSIVE} (the default); as {@link DistributedLock#mode()}.
	 * @throws IllegalArgumentException if permits were asked for and the mode is not exclusive
	 */
	public LockSpec withMode(LockMode mode) {
		Objects.requireNonNull(mode, "mode");
		if (this.permits > 0 && mode != LockMode.EXCLUSIVE) {
			throw new IllegalArgumentException("permits and mode " + mode + " do not go together");
		}
		return new LockSpec(this.name, this.key, this.lease, this.waitTime, this.autoRenew, this.maxLease,
				this.onLost, mode, this.permits);
	}

	/**
	 * One of this many permits of the name and key instead of a lock; as {@link DistributedLock#permits()}.
	 * @throws IllegalArgumentException if {@code permits} is below 1, or the mode is not exclusive
	 */
	public LockSpec withPermits(int permits) {
		if (permits < 1 || this.mode != LockMode.EXCLUSIVE) {
			throw new IllegalArgumentException("permits must be at least 1, with the exclusive mode: " + permits
					+ " with mode " + this.mode);
		}
		return new LockSpec(this.name, this.key, this.lease, this.waitTime, this.autoRenew, this.maxLease,
				this.onLost, this.mode, permits);
	}

	public String name() {
		return this.name;
	}

	public String key() {
		return this.key;
	}

	/** The lease, or null for {@code distlock.lease}. */
	public @Nullable Duration lease() {
		return this.lease;
	}

	/** The wait time, or null for {@code distlock.wait-time}. */
	public @Nullable Duration waitTime() {
		return this.waitTime;
	}

	public boolean autoRenew() {
		return this.autoRenew;
	}

	/** The renewal ceiling, or null for {@code distlock.max-lease}. */
	public @Nullable Duration maxLease() {
		return this.maxLease;
	}

	/** The reaction to a lost lock; {@link OnLost#DEFAULT} for {@code distlock.on-lost}. */
	public OnLost onLost() {
		return this.onLost;
	}

	public LockMode mode() {
		return this.mode;
	}

	/** The number of permits, or zero for a lock. */
	public int permits() {
		return this.permits;
	}

	private static String requireText(@Nullable String value, String what) {
		if (value == null || value.isBlank()) {
			throw new IllegalArgumentException("A lock's " + what + " must not be null or blank: " + value);
		}
		return value;
	}

	private static Duration atLeast(Duration duration, Duration minimum, String what) {
		Objects.requireNonNull(duration, what);
		if (duration.compareTo(minimum) < 0) {
			throw new IllegalArgumentException(what + " must be at least " + minimum.toMillis() + " ms: " + duration);
		}
		return duration;
	}

	@Override
	public String toString() {
		return "LockSpec[name=" + this.name + ", key=" + this.key + ", lease=" + this.lease + ", waitTime="
				+ this.waitTime + ", autoRenew=" + this.autoRenew + ", maxLease=" + this.maxLease + ", onLost="
				+ this.onLost + ", mode=" + this.mode + ", permits=" + this.permits + "]";
	}

}
