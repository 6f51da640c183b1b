package io.github.distlock.engine;

import java.time.Duration;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * An engine whose store a health check can ask: one bounded round trip, and words for an operator when it fails.
 */
public interface CheckableLockEngine extends LockEngine {

	/**
	 * One round trip to the store, bounded by the timeout.
	 * @return the round-trip time
	 * @throws RuntimeException if the store did not answer in time or refused
	 */
	Duration ping(Duration timeout);

	/**
	 * What a failed call to the store means, for an operator: refused (in the store's words, never an address or a
	 * credential), unreachable, or no answer within the timeout.
	 */
	String describeFailure(Throwable failure, Duration timeout);

	/**
	 * The refusal that the store's last lock calls met, while it lasts, as a sentence for an operator that names the
	 * store and its error; null when the last lock call succeeded.
	 */
	@Nullable String standingRefusal();

	/**
	 * What the store's configuration means for locks, for health details, read within the timeout: for Redis, its
	 * eviction policy. A {@code warning} entry names a risk that is not an outage. Never throws.
	 */
	default Map<String, Object> storeDetails(Duration timeout) {
		return Map.of();
	}

}
