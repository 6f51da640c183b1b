package io.github.distlock.autoconfigure;

import java.time.Duration;

import org.jspecify.annotations.Nullable;
import org.springframework.lang.Contract;

import io.github.distlock.engine.Leases;

/**
 * The checks of the {@code distlock.*} durations, run as they are bound: a bad value fails start-up with a message
 * that names the property, what it must be, and the value it was given.
 */
final class DurationSettings {

	private DurationSettings() {
	}

	/** A lease or time to live: at least {@link Leases#SHORTEST}; unset is left to the default. */
	@Contract("_, !null -> !null")
	static @Nullable Duration lease(String property, @Nullable Duration value) {
		return (value != null) ? Leases.requireLease(value, property) : null;
	}

	/** A timeout or interval: longer than zero. */
	@Contract("_, !null -> !null")
	static @Nullable Duration positive(String property, @Nullable Duration value) {
		if (value != null && (value.isZero() || value.isNegative())) {
			throw new IllegalArgumentException(property + " must be longer than zero, was " + value);
		}
		return value;
	}

	/** A wait or delay: zero (none) or longer. */
	@Contract("_, !null -> !null")
	static @Nullable Duration notNegative(String property, @Nullable Duration value) {
		if (value != null && value.isNegative()) {
			throw new IllegalArgumentException(property + " must not be negative, was " + value);
		}
		return value;
	}

}
