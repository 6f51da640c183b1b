package io.github.distlock.interceptor;

import java.time.Duration;

/**
 * The values a {@code @DistributedLock} attribute takes when it is left empty.
 *
 * @param lease the default lease
 * @param waitTime the default wait time
 * @param maxLease the default renewal ceiling, or null for none
 */
public record LockDefaults(Duration lease, Duration waitTime, Duration maxLease) {

	/** Thirty seconds of lease, five of waiting, no ceiling. */
	public static final LockDefaults STANDARD = new LockDefaults(Duration.ofSeconds(30), Duration.ofSeconds(5), null);

}
