package io.github.distlock;

import org.jspecify.annotations.Nullable;

import io.github.distlock.engine.LockRequest;

/**
 * The key expression of a {@link DistributedLock} evaluated to null, a blank string or a string longer than
 * {@link LockRequest#MAX_KEY_LENGTH} for this call (or, for a set of keys, to none, or to one such element), so there
 * is nothing safe to lock on. The method is not invoked.
 */
public class InvalidLockKeyException extends IllegalArgumentException {

	private final String method;

	private final String expression;

	public InvalidLockKeyException(String method, String expression, @Nullable Object value) {
		this(method, expression, "evaluated to " + ((value == null) ? "null" : "a blank string"));
	}

	private InvalidLockKeyException(String method, String expression, String problem) {
		super("The lock key of " + method + " " + problem + " (key = \"" + expression
				+ "\"); the method was not invoked");
		this.method = method;
		this.expression = expression;
	}

	/** A key longer than {@link LockRequest#MAX_KEY_LENGTH}. */
	public static InvalidLockKeyException tooLong(String method, String expression, int length) {
		return new InvalidLockKeyException(method, expression, "is " + length + " characters long, more than the "
				+ LockRequest.MAX_KEY_LENGTH + " a lock key may have; lock on something shorter that identifies the "
				+ "same thing, such as an id or a digest of the value");
	}

	/** A key expression that yielded a collection or array with no key in it, or a null or blank one. */
	public static InvalidLockKeyException badElement(String method, String expression, String problem) {
		return new InvalidLockKeyException(method, expression, problem);
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
