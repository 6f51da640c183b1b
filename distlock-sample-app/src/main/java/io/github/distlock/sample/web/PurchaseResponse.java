package io.github.distlock.sample.web;

import java.net.URI;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;

import io.github.distlock.sample.shop.Purchase;
import io.github.distlock.sample.shop.StaleTokenException;

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

	/** 201 with the order when bought, else 409: what every purchase endpoint answers. */
	public static ResponseEntity<PurchaseResponse> entity(Purchase purchase) {
		PurchaseResponse body = new PurchaseResponse(purchase.outcome().name(), purchase.sku(), purchase.orderId(),
				purchase.stockLeft(), purchase.token());
		if (purchase.outcome() == Purchase.Outcome.SOLD) {
			return ResponseEntity.created(URI.create("/orders/" + purchase.orderId())).body(body);
		}
		return ResponseEntity.status(HttpStatus.CONFLICT).body(body);
	}

	static PurchaseResponse staleToken(StaleTokenException ex) {
		return new PurchaseResponse(Purchase.Outcome.STALE_TOKEN.name(), ex.getSku(), null, ex.getStockLeft(),
				ex.getToken());
	}

}
