package io.github.distlock.execution;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import io.github.distlock.OnLost;

/**
 * The values a {@code @DistributedLock} attribute takes when it is left empty.
 *
 * @param lease the default lease
 * @param waitTime the default wait time
 * @param maxLease the default renewal ceiling, or null for none
 * @param onLost the default reaction to a lost lock
 */
public record LockDefaults(Duration lease, Duration waitTime, @Nullable Duration maxLease, OnLost onLost) {

	public LockDefaults {
		onLost = (onLost == null || onLost == OnLost.DEFAULT) ? OnLost.ROLLBACK : onLost;
	}

}
