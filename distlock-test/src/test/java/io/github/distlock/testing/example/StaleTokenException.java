package io.github.distlock.testing.example;

/** A write with a fencing token older than one already accepted. */
public class StaleTokenException extends IllegalStateException {

	public StaleTokenException(String orderId, long token, long lastToken) {
		super("Order " + orderId + ": token " + token + " is older than " + lastToken + ", already booked");
	}

}
