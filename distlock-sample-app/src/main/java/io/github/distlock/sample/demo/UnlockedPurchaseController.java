package io.github.distlock.sample.demo;

import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

import io.github.distlock.sample.web.PurchaseResponse;

/**
 * The unlocked read-check-write over HTTP, so that the two-process demo can oversell from outside the shops as it
 * sells correctly through {@code /products/{sku}/buy}. A shop serves it only when
 * {@value #ENABLED_PROPERTY} is true, which the demo sets on the processes it starts and nothing else does.
 */
@RestController
@ConditionalOnBooleanProperty(UnlockedPurchaseController.ENABLED_PROPERTY)
public class UnlockedPurchaseController {

	/** Whether this shop serves the unlocked purchase; false unless set. */
	public static final String ENABLED_PROPERTY = "sample.demo.unlocked-endpoint.enabled";

	/** Where it is served, with the product's sku in place of {@code {sku}}. */
	public static final String PATH = "/demo/unlocked/products/{sku}/buy";

	private final NaiveStockService naive;

	public UnlockedPurchaseController(NaiveStockService naive) {
		this.naive = naive;
	}

	/** Answers as {@code POST /products/{sku}/buy} does: 201 when bought, 409 when sold out. */
	@PostMapping(PATH)
	public ResponseEntity<PurchaseResponse> buy(@PathVariable String sku) {
		return PurchaseResponse.entity(this.naive.buy(sku));
	}

}
