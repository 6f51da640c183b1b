package io.github.distlock.redis;

import java.util.concurrent.atomic.LongAdder;

/**
 * Running counts of what an engine did, for metrics and health. Counting is a cheap striped add; readers sum.
 */
public final class LockEngineStatistics {

	final LongAdder renewals = new LongAdder();

	final LongAdder renewalsNotOwned = new LongAdder();

	final LongAdder renewalFailures = new LongAdder();

	final LongAdder renewalRoundTrips = new LongAdder();

	final LongAdder lost = new LongAdder();

	final LongAdder refusals = new LongAdder();

	/** Lease renewals that succeeded. */
	public long renewals() {
		return this.renewals.sum();
	}

	/** Renewals that found the lock no longer this holder's. */
	public long renewalsNotOwned() {
		return this.renewalsNotOwned.sum();
	}

	/** Renewals that could not reach Redis. */
	public long renewalFailures() {
		return this.renewalFailures.sum();
	}

	/** Renewal round trips to Redis: one per watchdog tick, its batches all sent at once. */
	public long renewalRoundTrips() {
		return this.renewalRoundTrips.sum();
	}

	/** Lock calls Redis refused with an error waiting will not cure (NOPERM, WRONGTYPE, OOM, READONLY, ...). */
	public long refusals() {
		return this.refusals.sum();
	}

	/** Locks found lost, for any reason. */
	public long lost() {
		return this.lost.sum();
	}

}
