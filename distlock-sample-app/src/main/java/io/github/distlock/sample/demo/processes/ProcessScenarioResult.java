package io.github.distlock.sample.demo.processes;

/**
 * What one scenario of the two-process demo came to: sold and stock as the database has them after the run, the
 * rest as the shops answered.
 *
 * @param scenario a label for the run
 * @param initialStock the stock the product started with
 * @param sold orders in the database
 * @param stockLeft the product's stock in the database
 * @param staleWritesRefused purchases answered 409 STALE_TOKEN: writes refused by the fencing token
 * @param busy purchases answered 503: the lock stayed busy for the whole wait
 * @param failed purchases answered otherwise, or not at all
 */
record ProcessScenarioResult(String scenario, int initialStock, int sold, int stockLeft, int staleWritesRefused,
		int busy, int failed) {

	/** Items sold beyond the stock there was. */
	int oversold() {
		return Math.max(0, this.sold - this.initialStock);
	}

	/** Whether stock and orders still add up: every item is either on the shelf or in exactly one order. */
	boolean consistent() {
		return this.stockLeft >= 0 && this.sold + this.stockLeft == this.initialStock;
	}

}
