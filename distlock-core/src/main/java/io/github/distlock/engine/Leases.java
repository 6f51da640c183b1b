package io.github.distlock.engine;

import java.time.Duration;
import java.util.Objects;

/** The one rule every lease, time to live and extension follows, for the API, the interceptor and every engine. */
public final class Leases {

	/** Stores keep leases in whole milliseconds at best: a shorter one would be no lease at all. */
	public static final Duration SHORTEST = Duration.ofMillis(1);

	private Leases() {
	}

	/**
	 * The duration, if it is a lease a store can keep.
	 * @param what names it in the error, such as {@code "ttl"}
	 * @throws NullPointerException naming {@code what}, if it is null
	 * @throws IllegalArgumentException naming {@code what} and the duration, if it is shorter than {@link #SHORTEST}
	 */
	public static Duration requireLease(Duration duration, String what) {
		Objects.requireNonNull(duration, what);
		if (duration.compareTo(SHORTEST) < 0) {
			throw new IllegalArgumentException(what + " must be at least 1ms: " + duration);
		}
		return duration;
	}

}
