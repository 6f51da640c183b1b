package io.github.distlock;

/**
 * A {@link DistributedLock} declaration that cannot work: an invalid key expression, a malformed or non-positive
 * duration, or a method a proxy cannot intercept. Raised while the application starts.
 */
public class LockDefinitionException extends IllegalStateException {

	private final String method;

	public LockDefinitionException(String method, String problem, Throwable cause) {
		super("Invalid @DistributedLock on " + method + ": " + problem, cause);
		this.method = method;
	}

	/** The method in {@code Class#method} form. */
	public String getMethod() {
		return this.method;
	}

}
