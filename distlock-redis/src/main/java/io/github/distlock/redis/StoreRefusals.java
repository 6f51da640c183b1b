package io.github.distlock.redis;

import org.jspecify.annotations.Nullable;

/**
 * The last refusal of a lock command by Redis (NOPERM, WRONGTYPE, OOM, READONLY, ...), kept until a lock command
 * succeeds again: while it stands, locking is failing for a reason an operator must fix, which health reports.
 * <p>
 * Costs a lock call one volatile read when nothing was refused.
 */
final class StoreRefusals {

	private volatile @Nullable String last;

	void failed(Throwable failure) {
		String code = RedisFailures.refusal(failure);
		if (code != null) {
			this.last = RedisFailures.describe(failure, code);
		}
	}

	void succeeded() {
		if (this.last != null) {
			this.last = null;
		}
	}

	/** The server's words for the standing refusal, or null when the last lock command was not refused. */
	@Nullable String current() {
		return this.last;
	}

}
