package io.github.distlock.sample.shop;

/** Where an order stands. */
public enum OrderStatus {

	/** Bought, awaiting payment. */
	NEW,

	/** Paid; paying again changes nothing. */
	PAID

}
