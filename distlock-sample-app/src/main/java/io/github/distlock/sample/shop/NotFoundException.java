package io.github.distlock.sample.shop;

/** A product or order that does not exist. */
public class NotFoundException extends RuntimeException {

	public NotFoundException(String what, Object id) {
		super("No " + what + " '" + id + "'");
	}

}
