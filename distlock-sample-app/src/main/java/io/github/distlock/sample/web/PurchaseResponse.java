package io.github.distlock.sample.web;

import io.github.distlock.sample.shop.Purchase;

/**
 * The reply to a purchase: what happened and under which fencing token.
 *
 * @param outcome SOLD, SOLD_OUT or STALE_TOKEN
 * @param sku the product
 * @param orderId the new order, when sold
 * @param stockLeft the stock after the purchase
 * @param fencingToken the token of the lock the purchase ran under
 */
public record PurchaseResponse(String outcome, String sku, Long orderId, int stockLeft, long fencingToken) {

	static PurchaseResponse of(Purchase purchase) {
		return new PurchaseResponse(purchase.outcome().name(), purchase.sku(), purchase.orderId(),
				purchase.stockLeft(), purchase.token());
	}

}
