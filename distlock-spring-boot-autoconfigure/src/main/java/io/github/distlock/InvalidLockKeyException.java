package io.github.distlock;

/**
 * The key expression of a {@link DistributedLock} evaluated to null or a blank string for this call, so there is
 * nothing safe to lock on. The method is not invoked.
 */
public class InvalidLockKeyException extends IllegalArgumentException {

	private final String method;

	private final String expression;

	public InvalidLockKeyException(String method, String expression, Object value) {
		super("The lock key of " + method + " evaluated to " + ((value == null) ? "null" : "a blank string")
				+ " (key = \"" + expression + "\"); the method was not invoked");
		this.method = method;
		this.expression = expression;
	}

	/** The method in {@code Class#method} form. */
	public String getMethod() {
		return this.method;
	}

	/** The key expression as written. */
	public String getExpression() {
		return this.expression;
	}

}
