package io.github.distlock.engine;

import java.util.concurrent.atomic.LongAdder;

/**
 * Running counts of what an engine did, for metrics and health. Counting is a cheap striped add; readers sum.
 */
public final class LockEngineStatistics {

	private final LongAdder renewals = new LongAdder();

	private final LongAdder renewalsNotOwned = new LongAdder();

	private final LongAdder renewalFailures = new LongAdder();

	private final LongAdder renewalRoundTrips = new LongAdder();

	private final LongAdder lost = new LongAdder();

	private final LongAdder refusals = new LongAdder();

	/** Counts a lease renewal that succeeded. */
	public void countRenewal() {
		this.renewals.increment();
	}

	/** Counts a renewal that found the lock no longer this holder's. */
	public void countRenewalNotOwned() {
		this.renewalsNotOwned.increment();
	}

	/** Counts renewals that could not reach the store. */
	public void countRenewalFailures(int count) {
		this.renewalFailures.add(count);
	}

	/** Counts one renewal round trip to the store. */
	public void countRenewalRoundTrip() {
		this.renewalRoundTrips.increment();
	}

	/** Counts a lock call the store refused. */
	public void countRefusal() {
		this.refusals.increment();
	}

	/** Counts a lock found lost. */
	public void countLoss() {
		this.lost.increment();
	}

	/** Lease renewals that succeeded. */
	public long renewals() {
		return this.renewals.sum();
	}

	/** Renewals that found the lock no longer this holder's. */
	public long renewalsNotOwned() {
		return this.renewalsNotOwned.sum();
	}

	/** Renewals that could not reach the store. */
	public long renewalFailures() {
		return this.renewalFailures.sum();
	}

	/** Renewal round trips to the store: one per watchdog tick for an engine that batches renewal. */
	public long renewalRoundTrips() {
		return this.renewalRoundTrips.sum();
	}

	/** Lock calls the store refused with an error waiting will not cure (for Redis: NOPERM, WRONGTYPE, OOM, ...). */
	public long refusals() {
		return this.refusals.sum();
	}

	/** Locks found lost, for any reason. */
	public long lost() {
		return this.lost.sum();
	}

}
