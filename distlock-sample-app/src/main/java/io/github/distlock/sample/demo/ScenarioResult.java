package io.github.distlock.sample.demo;

import java.time.Duration;

/**
 * What one run of the oversell scenario came to.
 *
 * @param mode a label for the run
 * @param locked whether purchases ran under {@code @DistributedLock}
 * @param initialStock the stock the product started with
 * @param attempts purchase attempts made
 * @param sold orders in the database after the run
 * @param stockLeft the product's stock after the run
 * @param staleTokens writes refused for a stale fencing token
 * @param timeouts attempts that did not get the lock within its wait time
 * @param errors attempts that failed in any other way
 * @param lockWaitP50 median time from call to the purchase running
 * @param lockWaitP99 99th percentile of the same
 */
public record ScenarioResult(String mode, boolean locked, int initialStock, int attempts, int sold, int stockLeft,
		int staleTokens, int timeouts, int errors, Duration lockWaitP50, Duration lockWaitP99) {

	/** Items sold beyond the stock there was. */
	public int oversold() {
		return Math.max(0, this.sold - this.initialStock);
	}

	/** Whether stock and orders still add up: every item is either on the shelf or in exactly one order. */
	public boolean consistent() {
		return this.stockLeft >= 0 && this.sold + this.stockLeft == this.initialStock;
	}

}
