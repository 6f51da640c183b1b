package io.github.distlock.sample.shop;

/**
 * What one attempt to buy an item came to.
 *
 * @param outcome what happened
 * @param sku the product
 * @param orderId the new order when {@link Outcome#SOLD}, else {@code null}
 * @param stockLeft the stock after the attempt, as this attempt saw it
 * @param token the fencing token the attempt wrote with, or 0 where it held no lock
 * @param startedNanos {@link System#nanoTime()} when the purchase began to run, after any lock wait
 */
public record Purchase(Outcome outcome, String sku, Long orderId, int stockLeft, long token, long startedNanos) {

	/** How a purchase ended. */
	public enum Outcome {

		/** One item was taken from stock and an order created. */
		SOLD,

		/** No stock was left. */
		SOLD_OUT,

		/**
		 * The stock write was refused because a write with a newer fencing token came first: this caller's lock had
		 * expired and someone else held it. Nothing was changed. {@link StockService} reports it by throwing
		 * {@link StaleTokenException}; this is its name in replies and demo counts.
		 */
		STALE_TOKEN

	}

	public static Purchase sold(String sku, long orderId, int stockLeft, long token, long startedNanos) {
		return new Purchase(Outcome.SOLD, sku, orderId, stockLeft, token, startedNanos);
	}

	public static Purchase soldOut(String sku, long token, long startedNanos) {
		return new Purchase(Outcome.SOLD_OUT, sku, null, 0, token, startedNanos);
	}

}
