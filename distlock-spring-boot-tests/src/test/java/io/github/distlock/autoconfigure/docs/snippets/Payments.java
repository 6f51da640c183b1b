package io.github.distlock.autoconfigure.docs.snippets;

import java.util.concurrent.CompletionStage;

/** A payment service the docs' examples call. */
public interface Payments {

	void charge(Order order, long token);

	CompletionStage<Receipt> chargeAsync(Order order);

	/** What a payment returns. */
	record Receipt(String orderId) {
	}

}
