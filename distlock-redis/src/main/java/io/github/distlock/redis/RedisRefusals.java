package io.github.distlock.redis;

import org.jspecify.annotations.Nullable;

import io.github.distlock.engine.DisplayedKey;
import io.github.distlock.engine.LockEngineStatistics;

/**
 * Turns Redis's refusal of a lock command into the exception its caller gets, counted as a refusal; a failure that
 * may pass by itself (no answer, no connection) is left to the caller.
 */
final class RedisRefusals {

	private final LockEngineStatistics statistics;

	private final String keyPrefix;

	RedisRefusals(LockEngineStatistics statistics, String keyPrefix) {
		this.statistics = statistics;
		this.keyPrefix = keyPrefix;
	}

	/**
	 * The exception for a refusal by Redis (see {@link RedisFailures}), or null when the failure may pass by itself.
	 * @param action what was refused, as in "acquire" or "release"
	 */
	@Nullable RuntimeException refused(Throwable failure, String action, String name, String key) {
		String code = RedisFailures.refusal(LockScripts.unwrap(failure));
		if (code == null) {
			return null;
		}
		this.statistics.countRefusal();
		return RedisFailures.refused(LockScripts.unwrap(failure), code, action + " lock '" + name + "' for key '"
				+ DisplayedKey.of(key) + "'", name, key, this.keyPrefix);
	}

}
